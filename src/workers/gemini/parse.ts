/**
 * The gemini 0.61.0 `--output-format stream-json` parser (pure). Every line is a JSON object with
 * `type` and an ISO `timestamp`:
 * - `init{session_id, model}` -> `worker.session`
 * - `message{role:"user", content}` -> nothing (the prompt echoed back)
 * - `message{role:"assistant", content, delta:true}` -> chunks of text, concatenated; the text of
 *   the last model turn is the answer
 * - `tool_use{tool_name, tool_id, parameters}` -> held until its result
 * - `tool_result{tool_id, status:"success"|"error", output?, error{type,message}?}` ->
 *   `worker.tool_call`; an error of type `policy_violation` or `tool_not_registered` is a denial
 *   and also gives `worker.denied`, and so is an `invalid_tool_params` error that refuses a path
 *   ("Access denied: Path ... is outside the workspace", "Path not in workspace: ..."), and a
 *   call the policy engine would have asked about ("... requires user confirmation, which is not
 *   supported in non-interactive mode.", an `unhandled_exception`: headless gemini refuses every
 *   ask at once); other invalid parameters are errors
 * - `result{status, stats{input_tokens, output_tokens, cached, input, ...}, error?{type,message}}`
 *   -> `worker.tokens` (totals of the whole run: gemini reports no per-call usage), then
 *   `worker.answer` or `worker.error`.
 * Gemini marks no model call, so a step starts at the first text or tool call after the prompt or
 * after tool results.
 */
import { event, type ToolKind, type WorkerEvent } from "../../events/mod.ts";
import type { LineTime, ParseState } from "../types.ts";
import { callEnd, callStart, statedTime } from "../_time.ts";
import { count, isObject, lookup, parseJsonObject, rawOf, str } from "../_json.ts";
import { oneLine } from "../../sys/text.ts";

/** Gemini tool names and their kinds. */
export const TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: "read",
  read_many_files: "read",
  grep_search: "search",
  search_file_content: "search",
  grep: "search",
  glob: "search",
  list_directory: "list",
  replace: "edit",
  edit: "edit",
  write_file: "write",
  run_shell_command: "shell",
  web_fetch: "web",
  google_web_search: "web",
  invoke_agent: "task",
};

/** Tool-result error types that mean the call was refused, not that it failed. */
export const DENIAL_TYPES: readonly string[] = ["policy_violation", "tool_not_registered"];

/** An `invalid_tool_params` message that refuses a path outside what the CLI allows. */
const PATH_REFUSAL =
  /^Access denied\b|^Path not in workspace\b|outside (?:of )?the (?:allowed )?workspace/i;

/** The refusal of a call the policy engine would have asked the user about. */
const ASK_REFUSAL = /requires user confirmation, which is not supported in non-interactive mode/i;

/** True when a tool result's error is a refusal rather than a failure. */
export function isDenial(type: string, message: string): boolean {
  return DENIAL_TYPES.includes(type) ||
    (type === "invalid_tool_params" && PATH_REFUSAL.test(message)) ||
    ASK_REFUSAL.test(message);
}

const TARGET_CHARS = 160;

interface PendingTool {
  tool: string;
  target: string;
  /**
   * When the call started: the `timestamp` of its `tool_use` line, else the moment that line was
   * certainly written after.
   */
  started?: number;
}

interface Scratch {
  /** Text of the current model turn so far. */
  text: string;
  /** True between the first output of a model turn and the next tool result. */
  inTurn: boolean;
  /** Calls waiting for their result, by `#` + tool id (no id can name a prototype key). */
  tools: Record<string, PendingTool>;
}

function scratchOf(state: ParseState): Scratch {
  const s = state.scratch as Partial<Scratch>;
  s.text ??= "";
  s.inTurn ??= false;
  s.tools ??= {};
  return s as Scratch;
}

/** The kind of a gemini tool; MCP and unknown tools are `other`. */
export function toolKind(tool: string): ToolKind {
  return lookup(TOOL_KINDS, tool) ?? "other";
}

/** What a tool call acts on: a path, pattern, command, URL or agent, shortened. */
export function toolTarget(tool: string, params: Record<string, unknown>): string {
  const first = (...keys: string[]) => {
    for (const key of keys) {
      const value = str(params[key]);
      if (value !== undefined && value !== "") return value;
    }
    return undefined;
  };
  let target: string | undefined;
  switch (toolKind(tool)) {
    case "read":
    case "edit":
    case "write":
      target = first("file_path", "absolute_path", "path");
      if (target === undefined && Array.isArray(params.include)) {
        target = params.include.filter((p) => typeof p === "string").join(" ");
      }
      break;
    case "search":
      target = first("pattern", "query");
      break;
    case "list":
      target = first("dir_path", "path");
      break;
    case "shell":
      target = first("command");
      break;
    case "web": {
      const text = first("url", "prompt", "query") ?? "";
      target = /https?:\/\/\S+/.exec(text)?.[0] ?? text;
      break;
    }
    case "task":
      target = first("agent_name", "prompt");
      break;
    default:
      target = first("file_path", "dir_path", "path", "command", "pattern", "query", "title");
  }
  return oneLine(target ?? "", TARGET_CHARS);
}

/** Milliseconds of the first retry hint in a message ("retry in 2s", "retry after 31.5s"). */
export function retryHintMs(message: string): number | undefined {
  const found = /retry (?:in|after) ([0-9.]+)\s*(ms|s)\b/i.exec(message);
  if (found === null) return undefined;
  const value = Number.parseFloat(found[1] ?? "");
  if (!Number.isFinite(value)) return undefined;
  return Math.round(found[2] === "ms" ? value : value * 1000);
}

/** The HTTP status inside an `[API Error: {"error":{"code":N,...}}]` message, if any. */
export function apiStatus(message: string): number | undefined {
  const found = /"code"\s*:\s*(\d{3})/.exec(message);
  return found === null ? undefined : Number(found[1]);
}

function startStep(state: ParseState, s: Scratch, time: number): WorkerEvent[] {
  if (s.inTurn) return [];
  s.inTurn = true;
  s.text = "";
  const index = state.steps;
  state.steps++;
  return [event("worker.step", time, { index })];
}

function flushText(s: Scratch, time: number): WorkerEvent[] {
  // Text events carry the model's words up to a tool call or the end; the answer keeps them too.
  return s.text === "" ? [] : [event("worker.text", time, { text: s.text })];
}

function parseToolResult(
  line: Record<string, unknown>,
  s: Scratch,
  at: LineTime,
): WorkerEvent[] {
  const time = at.time;
  const id = `#${str(line.tool_id) ?? ""}`;
  const pending = lookup(s.tools, id) ?? { tool: "unknown", target: "" };
  delete s.tools[id];
  s.inTurn = false;
  const kind = toolKind(pending.tool);
  const ended = pending.started === undefined
    ? undefined
    : callEnd(statedTime(line.timestamp), at, pending.started);
  const times = {
    ...(pending.started === undefined ? {} : { started: pending.started }),
    ...(ended === undefined ? {} : { ended }),
  };
  if (line.status === "success") {
    return [
      event("worker.tool_call", time, {
        tool: pending.tool,
        kind,
        target: pending.target,
        status: "ok",
        ...times,
      }),
    ];
  }
  const error = isObject(line.error) ? line.error : {};
  const message = str(error.message) ?? str(line.output) ?? "tool failed";
  const type = str(error.type) ?? "";
  if (isDenial(type, message)) {
    return [
      event("worker.tool_call", time, {
        tool: pending.tool,
        kind,
        target: pending.target,
        status: "denied",
        error: message,
        ...times,
      }),
      event("worker.denied", time, { tool: pending.tool, message }),
    ];
  }
  return [
    event("worker.tool_call", time, {
      tool: pending.tool,
      kind,
      target: pending.target,
      status: "error",
      error: message,
      ...times,
    }),
  ];
}

function parseResult(line: Record<string, unknown>, s: Scratch, time: number): WorkerEvent[] {
  const out: WorkerEvent[] = [];
  if (s.inTurn) out.push(...flushText(s, time));
  const stats = isObject(line.stats) ? line.stats : {};
  const cached = count(stats.cached);
  const input = typeof stats.input === "number"
    ? count(stats.input)
    : count(stats.input_tokens) - cached;
  out.push(
    event("worker.tokens", time, {
      input: Math.max(0, input),
      output: count(stats.output_tokens),
      cached,
      reasoning: count(stats.thoughts_tokens ?? stats.thoughts),
    }),
  );
  if (line.status === "success") {
    out.push(event("worker.answer", time, { text: s.inTurn ? s.text : "" }));
  } else {
    const error = isObject(line.error) ? line.error : {};
    const message = str(error.message) ?? "gemini ended with an error";
    const status = apiStatus(message);
    const retryAfterMs = retryHintMs(message);
    out.push(
      event("worker.error", time, {
        message,
        ...(status === undefined ? {} : { status }),
        ...(str(error.type) === undefined ? {} : { name: str(error.type) as string }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      }),
    );
  }
  s.inTurn = false;
  s.text = "";
  return out;
}

/**
 * Turns one stdout line of gemini's stream-json into events (pure). A tool call starts at the
 * `timestamp` of its `tool_use` line (gemini prints it before it runs the call) and ends at that
 * of its `tool_result` line.
 */
export function parseGeminiLine(line: string, state: ParseState, at: LineTime): WorkerEvent[] {
  const time = at.time;
  const value = parseJsonObject(line);
  if (value === null) return [event("worker.unknown", time, { raw: rawOf(line) })];
  const s = scratchOf(state);
  switch (value.type) {
    case "init": {
      const sessionId = str(value.session_id);
      return sessionId === undefined ? [] : [event("worker.session", time, { sessionId })];
    }
    case "message": {
      if (value.role === "user") return [];
      if (value.role !== "assistant") break;
      const out = startStep(state, s, time);
      const content = str(value.content) ?? "";
      s.text = value.delta === true ? s.text + content : content;
      return out;
    }
    case "tool_use": {
      const out = startStep(state, s, time);
      out.push(...flushText(s, time));
      s.text = "";
      const tool = str(value.tool_name) ?? "unknown";
      const params = isObject(value.parameters) ? value.parameters : {};
      s.tools[`#${str(value.tool_id) ?? ""}`] = {
        tool,
        target: toolTarget(tool, params),
        started: callStart(statedTime(value.timestamp), at),
      };
      return out;
    }
    case "tool_result":
      return parseToolResult(value, s, at);
    case "result":
      return parseResult(value, s, time);
    case "error": {
      // A warning or an invalid-stream error (`{type:"error", severity, message}`); a fatal
      // error comes in the `result` line.
      const message = str(value.message);
      if (message === undefined) break;
      const severity = str(value.severity);
      return [event("worker.error", time, { message, ...(severity ? { name: severity } : {}) })];
    }
  }
  return [event("worker.unknown", time, { raw: rawOf(line) })];
}
