/**
 * A cleaned run as the history keeps it: its steps turned back into the events they came from
 * (the rest of the events file went with the folder).
 */
import { event, type PitroomEvent, TOOL_KINDS, type ToolKind } from "../../events/mod.ts";
import type { Step } from "../../store/history/row.ts";

/** The steps as the events they came from (the rest of the events file is gone). */
export function stepEvents(steps: Step[]): PitroomEvent[] {
  return steps.map((s) => {
    if (s.type === "tool") {
      const kind = (TOOL_KINDS as readonly string[]).includes(s.kind ?? "")
        ? s.kind as ToolKind
        : "other";
      const status = s.status === "error" || s.status === "denied" ? s.status : "ok";
      return event("worker.tool_call", s.time, {
        tool: s.tool ?? "",
        kind,
        target: s.target ?? "",
        status,
        ...(s.text === null ? {} : { error: s.text }),
      });
    }
    if (s.type === "error") return event("worker.error", s.time, { message: s.text ?? "" });
    return event("worker.text", s.time, { text: s.text ?? "" });
  });
}
