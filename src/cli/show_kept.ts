/**
 * `show` of a run whose folder was cleaned: the report, steps and patch the history keeps.
 */
import { event, type PitroomEvent, TOOL_KINDS, type ToolKind } from "../events/mod.ts";
import type { KeptRun } from "../engine/history/lookup.ts";
import type { Step } from "../store/history/row.ts";
import { statePaths } from "../store/paths.ts";
import { exists } from "../sys/fs.ts";
import { RefusedError, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { FlagValues } from "./command.ts";
import { printJson, printJsonLine } from "./output.ts";
import { oneLine } from "../sys/text.ts";
import { renderReport } from "./report.ts";

/** The run `typed` names in the history, or null (no history, or no such run there). */
export async function findKept(sys: Sys, typed: string): Promise<KeptRun | null> {
  if (!(await exists(statePaths(sys.stateDir).history))) return null;
  const { withHistory } = await import("../store/history/ready.ts");
  const { keptRun, matchIds } = await import("../engine/history/lookup.ts");
  return await withHistory(sys, (db) => {
    const ids = matchIds(db, typed);
    if (ids.length > 1) {
      throw new UsageError(`Run "${typed}" is ambiguous: ${ids.length} runs in the history match`, {
        hint: "give more of the id",
      });
    }
    return ids[0] === undefined ? null : keptRun(db, ids[0]);
  });
}

/** The steps as report lines. */
export function renderSteps(steps: Step[]): string {
  if (steps.length === 0) return "steps: (none kept)\n";
  const lines = ["steps:"];
  for (const s of steps) {
    if (s.type === "tool") {
      const status = s.status === "ok"
        ? ""
        : `  ${s.status}${s.text ? `: ${oneLine(s.text, 60)}` : ""}`;
      lines.push(`  ${(s.kind ?? "other").padEnd(6)} ${oneLine(s.target ?? "", 80)}${status}`);
    } else {
      lines.push(`  ${s.type.padEnd(6)} ${oneLine(s.text ?? "", 90)}`);
    }
  }
  return lines.join("\n") + "\n";
}

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

/** Prints a kept run the way `show` prints one with a folder. */
export function showKept(sys: Sys, flags: FlagValues, kept: KeptRun): number {
  const { record } = kept;
  const note = `Run "${record.id}": its folder was cleaned; this is what the history keeps\n`;
  if (flags.patch) {
    if (kept.patch === null) {
      throw new RefusedError("no_patch", `Run "${record.id}" changed no files`);
    }
    if (flags.json) printJson(sys, { id: record.id, patch: kept.patch });
    else sys.out.stdout(kept.patch);
    return 0;
  }
  if (flags.events) {
    sys.out.stderr(`${note}(its steps only: the events file went with the folder)\n`);
    for (const ev of stepEvents(kept.steps)) printJsonLine(sys, ev);
    return 0;
  }
  if (flags.json) {
    printJson(sys, record);
    return 0;
  }
  sys.out.stderr(note);
  sys.out.stdout(renderReport(record, sys.clock.now()) + "\n" + renderSteps(kept.steps));
  return 0;
}
