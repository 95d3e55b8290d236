/**
 * The GitHub Copilot CLI 1.0.102 `--output-format json` parser (pure). Every line is a JSON
 * object with `type`, an ISO `timestamp` and `data`; the CLI leaves out of this output its usage
 * (`assistant.usage`) and permission events, so no tokens can be read here (they are "not
 * reported", never guessed):
 * - `assistant.turn_start` -> `worker.step` (one model call)
 * - `assistant.message{content, toolRequests}` -> `worker.text`; a message with no tool requests
 *   is the answer so far (the last one is the answer)
 * - `tool.execution_start{toolCallId, toolName, arguments}` -> held until it completes
 * - `tool.execution_complete{toolCallId, success, error{code, message}}` -> `worker.tool_call`;
 *   an error of code `denied` ("Permission to run this tool was denied ...") or a call of a tool
 *   the run does not offer ("Tool 'x' does not exist.") is a denial and also `worker.denied`
 * - `session.error{errorType, message, statusCode}` -> `worker.error`
 * - `result{sessionId, exitCode}` -> `worker.session`, then `worker.answer` when it exited 0.
 * Ephemeral progress lines (`session.*_loaded`, `model.call_*`, deltas, `assistant.idle`,
 * `assistant.turn_end`, the echoed `user.message`) give nothing. Copilot masks the value of every
 * secret-looking environment variable it sees in all it prints, field names included; a short
 * value garbles the stream (Pitroom hands it only its own provider's variables), and such lines
 * become `worker.unknown`.
 */
import { event, type ToolKind, type WorkerEvent } from "../../events/mod.ts";
import type { LineTime, ParseState } from "../types.ts";
import { callEnd, callStart, statedTime } from "../_time.ts";
import { httpStatus, isObject, type Json, lookup, parseJsonObject, rawOf, str } from "../_json.ts";
import { oneLine } from "../../sys/text.ts";

/** Copilot CLI's tools by kind. */
export const COPILOT_TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
  view: "read",
  grep: "search",
  glob: "search",
  edit: "edit",
  create: "write",
  bash: "shell",
  read_bash: "shell",
  write_bash: "shell",
  web_fetch: "web",
  task: "task",
};

/** Lines that carry nothing a run records. */
const QUIET = new Set([
  "user.message",
  "assistant.turn_end",
  "assistant.idle",
  "assistant.message_start",
  "assistant.message_delta",
  "assistant.reasoning_delta",
  "assistant.streaming_delta",
  "assistant.tool_call_delta",
  "assistant.intent",
  "model.call_start",
  "model.call_finished",
  "model.call_final_result",
  "model.call_failure",
  "session.skills_loaded",
  "session.mcp_servers_loaded",
  "session.tools_updated",
  "session.info",
  "session.idle",
  "session.start",
  "session.resume",
  "tool.execution_partial_result",
  "tool.execution_progress",
]);

const TARGET_CHARS = 160;
const DENIED = /^Permission to run this tool was denied|^Tool '[^']*' does not exist/;

/** What a tool call acts on: its path, pattern, command or URL, shortened. */
export function toolTarget(tool: string, args: Json): string {
  const paths = Array.isArray(args.paths) ? args.paths.filter((p) => typeof p === "string") : [];
  const target = str(args.path) ?? str(args.command) ?? str(args.url) ??
    (str(args.pattern) === undefined
      ? undefined
      : paths.length > 0
      ? `${args.pattern} in ${paths.join(" ")}`
      : str(args.pattern)) ??
    str(args.description) ?? "";
  const kind = lookup(COPILOT_TOOL_KINDS, tool);
  return oneLine(target, TARGET_CHARS, kind === "read" || kind === "edit" ? { keepEnd: true } : {});
}

interface Pending {
  tool: string;
  target: string;
  started: number;
}

interface Scratch {
  /** Calls waiting to complete, by `#` + id (no id can name a prototype key). */
  tools?: Record<string, Pending>;
  answer?: string;
}

function completed(data: Json, scratch: Scratch, at: LineTime, stamp: unknown): WorkerEvent[] {
  const id = `#${str(data.toolCallId) ?? ""}`;
  const tools = scratch.tools ?? {};
  const pending = lookup(tools, id) ?? { tool: "unknown", target: "", started: at.since };
  delete tools[id];
  const kind = lookup(COPILOT_TOOL_KINDS, pending.tool) ?? "other";
  const ended = callEnd(statedTime(stamp), at, pending.started);
  const base = {
    tool: pending.tool,
    kind,
    target: pending.target,
    started: pending.started,
    ...(ended === undefined ? {} : { ended }),
  };
  if (data.success === true) {
    return [event("worker.tool_call", at.time, { ...base, status: "ok" })];
  }
  const error = isObject(data.error) ? data.error : {};
  const message = oneLine(str(error.message) ?? "tool failed", TARGET_CHARS);
  if (str(error.code) === "denied" || DENIED.test(message)) {
    return [
      event("worker.tool_call", at.time, { ...base, status: "denied", error: message }),
      event("worker.denied", at.time, { tool: pending.tool, message }),
    ];
  }
  return [event("worker.tool_call", at.time, { ...base, status: "error", error: message })];
}

function errorEvent(data: Json, time: number): WorkerEvent {
  const status = httpStatus(data.statusCode);
  const name = str(data.errorType);
  const code = str(data.errorCode);
  const message = str(data.message) ?? "Copilot reported an error";
  return event("worker.error", time, {
    message: oneLine(
      code === undefined || message.includes(code) ? message : `${message} (${code})`,
      300,
    ),
    ...(status === undefined ? {} : { status }),
    ...(name === undefined ? {} : { name }),
  });
}

/** Turns one line of Copilot CLI's JSON output into events. */
export function parseCopilotLine(line: string, state: ParseState, at: LineTime): WorkerEvent[] {
  const time = at.time;
  const value = parseJsonObject(line);
  if (value === null || typeof value.type !== "string") {
    return [event("worker.unknown", time, { raw: rawOf(line) })];
  }
  const scratch = state.scratch as Scratch;
  const data = isObject(value.data) ? value.data : {};
  if (QUIET.has(value.type)) return [];
  switch (value.type) {
    case "assistant.turn_start": {
      const index = state.steps;
      state.steps++;
      return [event("worker.step", time, { index })];
    }
    case "assistant.message": {
      const text = str(data.content) ?? "";
      const requests = Array.isArray(data.toolRequests) ? data.toolRequests : [];
      if (requests.length === 0) scratch.answer = text;
      return text.trim() === "" ? [] : [event("worker.text", time, { text })];
    }
    case "tool.execution_start": {
      const tool = str(data.toolName) ?? "unknown";
      const args = isObject(data.arguments) ? data.arguments : {};
      (scratch.tools ??= {})[`#${str(data.toolCallId) ?? ""}`] = {
        tool,
        target: toolTarget(tool, args),
        started: callStart(statedTime(value.timestamp), at),
      };
      return [];
    }
    case "tool.execution_complete":
      return completed(data, scratch, at, value.timestamp);
    case "session.error":
      return [errorEvent(data, time)];
    case "result": {
      const out: WorkerEvent[] = [];
      const sessionId = str(value.sessionId);
      if (sessionId !== undefined) out.push(event("worker.session", time, { sessionId }));
      const answer = (scratch.answer ?? "").trim();
      if (value.exitCode === 0 && answer !== "") {
        out.push(event("worker.answer", time, { text: answer }));
      }
      return out;
    }
  }
  return [event("worker.unknown", time, { raw: rawOf(line) })];
}
