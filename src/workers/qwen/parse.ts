/**
 * The pure parser of Qwen Code's `--output-format stream-json` stream (0.24.4). Every line has
 * `type`, `uuid` and `session_id`:
 * - `system/init{session_id, cwd, model}` -> `worker.session`; `system/retry` (a provider retry,
 *   detail only on stderr) -> a retryable `worker.error`
 * - `stream_event` (goal state, partial messages) -> nothing
 * - `assistant{message{content, usage}}`: one line per part of a model call (text, thinking or
 *   tool calls, each its own id); a step starts at the first assistant line after the prompt or
 *   after tool results. `usage` is the call's, on its last line: `input_tokens` includes
 *   `cache_read_input_tokens`, and `output_tokens` includes any reasoning (not reported apart)
 * - `user{message{content[tool_result{tool_use_id, is_error, content}]}}` -> `worker.tool_call`;
 *   a refusal ("permission was declined", "denied by permission rules", a tool "not found in
 *   registry") also gives `worker.denied`
 * - `result{is_error, result, usage, error{message}}`: the run's totals (what the calls' lines
 *   did not count is added) and the answer, or the error ("[API Error: 404 ...]").
 * Qwen reports no cost.
 */
import { event, type ToolKind, type WorkerEvent } from "../../events/mod.ts";
import type { LineTime, ParseState } from "../types.ts";
import { callStart } from "../_time.ts";
import {
  amount,
  count,
  isObject,
  type Json,
  lookup,
  parseJsonObject,
  rawOf,
  str,
  stringify,
} from "../_json.ts";
import { oneLine } from "../../sys/text.ts";

/** Qwen Code's tools by kind. */
export const QWEN_TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: "read",
  read_many_files: "read",
  grep_search: "search",
  glob: "search",
  tool_search: "search",
  list_directory: "list",
  edit: "edit",
  notebook_edit: "edit",
  write_file: "write",
  run_shell_command: "shell",
  web_fetch: "web",
  web_search: "web",
  agent: "task",
};

/** A tool result that says the call was refused rather than failed. */
const REFUSAL =
  /permission was declined|denied by permission rules|not found in registry|is not available in|requires permission/i;

const TARGET_CHARS = 160;
const ERROR_CHARS = 300;

interface Pending {
  tool: string;
  kind: ToolKind;
  target: string;
  /** The moment the line announcing the call was certainly written after (qwen states no time). */
  started?: number;
}

interface Totals {
  input: number;
  output: number;
  cached: number;
}

interface Scratch {
  cwd: string | null;
  session: string | null;
  /** True between a model call's first line and the next tool results. */
  inStep: boolean;
  pending: Record<string, Pending>;
  counted: Totals;
  /** Text of the current step. */
  text: string;
}

function scratchOf(state: ParseState): Scratch {
  const s = state.scratch as Partial<Scratch>;
  s.cwd ??= null;
  s.session ??= null;
  s.inStep ??= false;
  s.pending ??= {};
  s.counted ??= { input: 0, output: 0, cached: 0 };
  s.text ??= "";
  return s as Scratch;
}

function relative(path: string, cwd: string | null): string {
  return cwd !== null && path.startsWith(cwd + "/") ? path.slice(cwd.length + 1) : path;
}

/** The kind and target of a qwen tool call. */
export function describeQwenTool(name: string, input: unknown, cwd: string | null): Pending {
  // A deferred tool called through `tool_call` is the tool it names.
  const args = isObject(input) ? input : {};
  if (name === "tool_call" && typeof args.name === "string") {
    return describeQwenTool(args.name, args.arguments, cwd);
  }
  const kind = lookup(QWEN_TOOL_KINDS, name) ?? "other";
  const path = str(args.file_path) ?? str(args.absolute_path) ?? str(args.notebook_path) ??
    str(args.path) ?? str(args.dir_path);
  let target: string;
  switch (kind) {
    case "search":
      target = `${str(args.pattern) ?? str(args.query) ?? ""}${
        path === undefined ? "" : ` in ${relative(path, cwd)}`
      }`;
      break;
    case "shell":
      target = str(args.command) ?? "";
      break;
    case "web":
      target = str(args.url) ?? str(args.query) ?? "";
      break;
    case "task":
      target = str(args.description) ?? str(args.subagent_type) ?? "";
      break;
    default:
      target = path !== undefined ? relative(path, cwd) : stringify(args);
  }
  return { tool: name, kind, target: oneLine(target, TARGET_CHARS) };
}

function usageOf(usage: unknown): Totals {
  const u = isObject(usage) ? usage : {};
  const cached = count(u.cache_read_input_tokens);
  return {
    input: Math.max(0, count(u.input_tokens) - cached),
    output: count(u.output_tokens),
    cached,
  };
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isObject(p) && typeof p.text === "string" ? p.text : "")).join("\n");
}

/** A retry hint in a message: "try again in 20s", "retry in 7m12s", "retry after 1.5 seconds". */
export function retryHintMs(text: string): number | undefined {
  const found =
    /(?:retry|try again)\s+(?:in|after)\s+((?:\d+(?:\.\d+)?\s*(?:ms|minutes?|min|m|seconds?|sec|s|hours?|h)(?![a-z])\s*)+)/i
      .exec(text);
  if (found?.[1] === undefined) return undefined;
  let ms = 0;
  for (const [, value, unit = ""] of found[1].matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
    const n = Number(value);
    const u = unit.toLowerCase();
    ms += u === "ms"
      ? n
      : u.startsWith("h")
      ? n * 3_600_000
      : u.startsWith("m")
      ? n * 60_000
      : n * 1000;
  }
  return amount(Math.round(ms));
}

/** The HTTP status of qwen's `[API Error: 404 ...]` wording, if any. */
export function apiStatus(message: string): number | undefined {
  const found = /\bAPI Error:\s*(\d{3})\b/.exec(message) ?? /\bstatus(?: code)?:?\s*(\d{3})\b/i
    .exec(message);
  return found?.[1] === undefined ? undefined : Number(found[1]);
}

function parseAssistant(line: Json, state: ParseState, at: LineTime): WorkerEvent[] {
  const s = scratchOf(state);
  const time = at.time;
  const message = isObject(line.message) ? line.message : {};
  const content = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  // The API error text qwen shows as an assistant message; the `result` line reports it.
  if (
    content.length === 1 && typeof content[0]?.text === "string" &&
    /^\[API Error:/.test(content[0].text)
  ) return [];
  const out: WorkerEvent[] = [];
  if (!s.inStep) {
    s.inStep = true;
    s.text = "";
    out.push(event("worker.step", time, { index: state.steps }));
    state.steps++;
  }
  for (const block of content) {
    if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
      s.text += block.text;
      out.push(event("worker.text", time, { text: block.text }));
    } else if (block.type === "thinking" && typeof block.thinking === "string") {
      if (block.thinking !== "") {
        out.push(event("worker.reasoning", time, { text: block.thinking }));
      }
    } else if (block.type === "tool_use" && typeof block.id === "string") {
      s.pending[`#${block.id}`] = {
        ...describeQwenTool(str(block.name) ?? "unknown", block.input, s.cwd),
        started: callStart(undefined, at),
      };
    }
  }
  const usage = usageOf(message.usage);
  if (usage.input + usage.output + usage.cached > 0) {
    s.counted = {
      input: s.counted.input + usage.input,
      output: s.counted.output + usage.output,
      cached: s.counted.cached + usage.cached,
    };
    out.push(event("worker.tokens", time, { ...usage, reasoning: 0 }));
  }
  return out;
}

function parseUser(line: Json, state: ParseState, time: number): WorkerEvent[] {
  const s = scratchOf(state);
  const message = isObject(line.message) ? line.message : {};
  const content = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  const out: WorkerEvent[] = [];
  for (const block of content) {
    if (block.type !== "tool_result") continue;
    s.inStep = false;
    const id = `#${str(block.tool_use_id) ?? ""}`;
    const pending = lookup(s.pending, id) ??
      { tool: "unknown", kind: "other" as const, target: "" };
    delete s.pending[id];
    if (block.is_error !== true) {
      out.push(event("worker.tool_call", time, { ...pending, status: "ok" }));
      continue;
    }
    const error = oneLine(resultText(block.content), ERROR_CHARS);
    const denied = REFUSAL.test(error);
    out.push(event("worker.tool_call", time, {
      ...pending,
      status: denied ? "denied" : "error",
      error,
    }));
    if (denied) out.push(event("worker.denied", time, { tool: pending.tool, message: error }));
  }
  return out;
}

function parseResult(line: Json, state: ParseState, time: number): WorkerEvent[] {
  const s = scratchOf(state);
  const total = usageOf(line.usage);
  const rest = {
    input: Math.max(0, total.input - s.counted.input),
    output: Math.max(0, total.output - s.counted.output),
    cached: Math.max(0, total.cached - s.counted.cached),
  };
  s.counted = {
    input: s.counted.input + rest.input,
    output: s.counted.output + rest.output,
    cached: s.counted.cached + rest.cached,
  };
  const out: WorkerEvent[] = [];
  if (rest.input + rest.output + rest.cached > 0) {
    out.push(event("worker.tokens", time, { ...rest, reasoning: 0 }));
  }
  s.inStep = false;
  if (line.is_error !== true) {
    out.push(event("worker.answer", time, { text: str(line.result) ?? s.text }));
    return out;
  }
  const error = isObject(line.error) ? line.error : {};
  const message = str(error.message) ?? str(line.result) ??
    `qwen ended with ${str(line.subtype) ?? "an error"}`;
  const status = apiStatus(message);
  const retryAfterMs = retryHintMs(message);
  out.push(event("worker.error", time, {
    message: oneLine(message, ERROR_CHARS),
    ...(status === undefined ? {} : { status }),
    retryable: false,
    name: str(line.subtype) ?? "error",
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  }));
  return out;
}

function parseSystem(line: Json, state: ParseState, time: number): WorkerEvent[] | null {
  const s = scratchOf(state);
  if (line.subtype === "init") {
    s.cwd = str(line.cwd) ?? null;
    return [];
  }
  if (line.subtype === "retry") {
    const data = isObject(line.data) ? line.data : {};
    const attempt = count(data.attempt);
    const delay = amount(data.delayMs);
    return [event("worker.error", time, {
      message: attempt > 0
        ? `Provider retry ${attempt}/${count(data.maxRetries)}`
        : "Provider retry",
      retryable: true,
      name: "retry",
      ...(delay === undefined ? {} : { retryAfterMs: delay }),
    })];
  }
  return null;
}

/** Turns one stdout line of qwen's stream-json into events (pure). */
export function parseQwenLine(line: string, state: ParseState, at: LineTime): WorkerEvent[] {
  const time = at.time;
  const value = parseJsonObject(line);
  const unknown = () => [event("worker.unknown", time, { raw: rawOf(line) })];
  if (value === null || typeof value.type !== "string") return unknown();
  const s = scratchOf(state);
  const out: WorkerEvent[] = [];
  const session = str(value.session_id);
  if (session !== undefined && session !== s.session) {
    s.session = session;
    out.push(event("worker.session", time, { sessionId: session }));
  }
  switch (value.type) {
    case "assistant":
      return [...out, ...parseAssistant(value, state, at)];
    case "user":
      return [...out, ...parseUser(value, state, time)];
    case "result":
      return [...out, ...parseResult(value, state, time)];
    case "stream_event":
      return out;
    case "system": {
      const events = parseSystem(value, state, time);
      return events === null ? [...out, ...unknown()] : [...out, ...events];
    }
    default:
      return [...out, ...unknown()];
  }
}
