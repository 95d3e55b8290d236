/**
 * The pure parser of claude's `--output-format stream-json --verbose` stream (2.1.328). Lines:
 * `system/init` (session id, cwd), `assistant` (one line per content block; blocks of one model
 * call share the message id), `user` (tool results), `system/permission_denied`,
 * `system/api_retry`, and the last line `result`. Tool calls are reported when their result
 * arrives (status known). `assistant` lines carry the usage of the call's start (the output count
 * is not final), so the `result` line adds what the calls' events did not count: the events'
 * tokens add up to the run's usage. `system/thinking_tokens` lines carry claude's running estimate
 * of the thinking tokens: they count as reasoning (out of the output) when the usage names none.
 * The `result` line's `total_cost_usd` is the whole session's, also for a resumed one, while its
 * `usage` is this run's: the run is charged its share of the session's cost, weighing tokens as
 * Anthropic prices them (output 5x input, cache reads 0.1x, cache writes 1.25x), which is exact
 * for one model.
 */
import { event, type ToolKind, type WorkerEvent } from "../../events/mod.ts";
import type { LineTime, ParseState } from "../types.ts";
import { callEnd, callStart, statedTime } from "../_time.ts";
import {
  amount,
  count,
  httpStatus,
  isObject,
  type Json,
  lookup,
  parseJsonObject,
  rawOf,
  str,
  stringify,
} from "../_json.ts";
import { oneLine } from "../../sys/text.ts";

/** Kinds of claude's tools. */
export const CLAUDE_TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
  Read: "read",
  NotebookRead: "read",
  Grep: "search",
  Glob: "search",
  ToolSearch: "search",
  LS: "list",
  Edit: "edit",
  MultiEdit: "edit",
  NotebookEdit: "edit",
  Write: "write",
  Bash: "shell",
  BashOutput: "shell",
  KillShell: "shell",
  PowerShell: "shell",
  WebFetch: "web",
  WebSearch: "web",
  Task: "task",
  Agent: "task",
};

/** The tool result of a call to a tool `--tools` left out. */
const REMOVED_TOOL = /No such tool available: .* is disabled for this session/;

const TARGET_CHARS = 120;
const ERROR_CHARS = 300;

interface PendingTool {
  tool: string;
  kind: ToolKind;
  target: string;
  /**
   * When the call started: the `timestamp` of the line announcing it, else the moment that line
   * was certainly written after.
   */
  started?: number;
}

interface Totals {
  input: number;
  output: number;
  cached: number;
  reasoning: number;
}

/** The parser's scratch (JSON-serialisable, kept in `ParseState.scratch`). */
interface Scratch {
  cwd: string | null;
  /** Calls waiting for their result, by `#` + tool use id (no id can name a prototype key). */
  pending: Record<string, PendingTool>;
  denied: string[];
  messages: string[];
  counted: Totals;
  /** The provider's retry hint seen in `api_retry` lines, ms. */
  retryHintMs: number | null;
  /** `api_error_type` of the last synthetic API-error message. */
  apiErrorType: string | null;
  /** claude's latest estimate of this run's thinking tokens (`system/thinking_tokens`). */
  thinking: number;
}

/** A fresh parse state. */
export function newClaudeState(): ParseState {
  const scratch: Scratch = {
    cwd: null,
    pending: {},
    denied: [],
    messages: [],
    counted: { input: 0, output: 0, cached: 0, reasoning: 0 },
    retryHintMs: null,
    apiErrorType: null,
    thinking: 0,
  };
  return { steps: 0, scratch: scratch as unknown as Record<string, unknown> };
}

function scratchOf(state: ParseState): Scratch {
  return state.scratch as unknown as Scratch;
}

function relative(path: string, cwd: string | null): string {
  if (cwd !== null && path.startsWith(cwd + "/")) return path.slice(cwd.length + 1);
  return path;
}

/** The kind and target of a claude tool call. */
export function describeTool(name: string, input: unknown, cwd: string | null): PendingTool {
  const kind = lookup(CLAUDE_TOOL_KINDS, name) ?? "other";
  const args = isObject(input) ? input : {};
  const path = str(args.file_path) ?? str(args.notebook_path) ?? str(args.path);
  let target: string;
  if (name === "Grep" || name === "Glob") {
    const where = str(args.path);
    target = `${str(args.pattern) ?? ""}${where ? ` in ${relative(where, cwd)}` : ""}`;
  } else if (kind === "shell") target = str(args.command) ?? str(args.bash_id) ?? "";
  else if (name === "WebFetch") target = str(args.url) ?? "";
  else if (name === "WebSearch") target = str(args.query) ?? "";
  else if (kind === "task") target = str(args.description) ?? str(args.subagent_type) ?? "";
  else if (name === "ToolSearch") target = str(args.query) ?? "";
  else if (path !== undefined) target = relative(path, cwd);
  else target = stringify(args);
  return { tool: name, kind, target: oneLine(target, TARGET_CHARS) };
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => isObject(part) && typeof part.text === "string" ? part.text : "")
    .join("\n");
}

function cleanError(text: string): string {
  return oneLine(text.replace(/<\/?tool_use_error>/g, ""), ERROR_CHARS);
}

/** A retry hint in a message: "retry in 2s", "try again in 20 seconds", "retry after 3s". */
export function retryHintMs(text: string): number | null {
  const found =
    /(?:retry|try again)\s+(?:in|after)\s+(\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?|m|min|minutes?)\b/i
      .exec(text);
  if (found?.[1] === undefined || found[2] === undefined) return null;
  const value = Number(found[1]);
  const unit = found[2].toLowerCase();
  const ms = unit === "ms" ? value : unit.startsWith("m") ? value * 60_000 : value * 1000;
  return amount(ms) ?? null;
}

/**
 * claude's own backoff for `attempt` is 500 ms doubling (at most 32 s) plus up to 25% jitter; a
 * longer `retry_delay_ms` came from the provider's `retry-after`.
 */
function providerDelay(attempt: number, delayMs: number): number | null {
  const own = Math.min(500 * 2 ** Math.max(0, attempt - 1), 32_000) * 1.25;
  return delayMs > own ? delayMs : null;
}

/** Tokens of a usage block; `thinking` is an estimate of the thinking tokens, used when larger. */
function usageOf(usage: unknown, thinking = 0): Totals {
  const u = isObject(usage) ? usage : {};
  const details = isObject(u.output_tokens_details) ? u.output_tokens_details : {};
  const output = count(u.output_tokens);
  const reasoning = Math.min(output, Math.max(count(details.thinking_tokens), thinking));
  return {
    input: count(u.input_tokens) + count(u.cache_creation_input_tokens),
    cached: count(u.cache_read_input_tokens),
    output: output - reasoning,
    reasoning,
  };
}

/** Tokens weighed as Anthropic prices them, relative to one input token. */
function priceWeight(input: number, cacheWrite: number, cacheRead: number, output: number) {
  return input + 1.25 * cacheWrite + 0.1 * cacheRead + 5 * output;
}

/**
 * This run's cost out of the session's `total_cost_usd`: all of it when the session's per-model
 * token counts are this run's (a new session), else the run's weighed share.
 */
function runCost(line: Json): number | undefined {
  const total = amount(line.total_cost_usd);
  if (total === undefined) return undefined;
  const u = isObject(line.usage) ? line.usage : {};
  const run = priceWeight(
    count(u.input_tokens),
    count(u.cache_creation_input_tokens),
    count(u.cache_read_input_tokens),
    count(u.output_tokens),
  );
  const models = isObject(line.modelUsage) ? Object.values(line.modelUsage).filter(isObject) : [];
  const session = models.reduce((sum, m) =>
    sum + priceWeight(
      count(m.inputTokens),
      count(m.cacheCreationInputTokens),
      count(m.cacheReadInputTokens),
      count(m.outputTokens),
    ), 0);
  if (session <= run || run === 0) return total;
  return total * (run / session);
}

function add(a: Totals, b: Totals): Totals {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cached: a.cached + b.cached,
    reasoning: a.reasoning + b.reasoning,
  };
}

function isZero(t: Totals): boolean {
  return t.input === 0 && t.output === 0 && t.cached === 0 && t.reasoning === 0;
}

function parseAssistant(line: Json, state: ParseState, at: LineTime): WorkerEvent[] {
  const s = scratchOf(state);
  const time = at.time;
  const message = isObject(line.message) ? line.message : {};
  if (line.is_api_error_message === true || message.model === "<synthetic>") {
    // The API error is reported once, by the `result` line; remember its type for it.
    s.apiErrorType = str(line.api_error_type) ?? str(line.error) ?? s.apiErrorType;
    return [];
  }
  const out: WorkerEvent[] = [];
  const id = str(message.id);
  if (id !== undefined && !s.messages.includes(id)) {
    s.messages.push(id);
    out.push(event("worker.step", time, { index: state.steps }));
    state.steps++;
    const usage = usageOf(message.usage);
    if (!isZero(usage)) {
      s.counted = add(s.counted, usage);
      out.push(event("worker.tokens", time, { ...usage }));
    }
  }
  const content = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  for (const block of content) {
    if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
      out.push(event("worker.text", time, { text: block.text }));
    } else if (block.type === "thinking" && typeof block.thinking === "string") {
      if (block.thinking !== "") {
        out.push(event("worker.reasoning", time, { text: block.thinking }));
      }
    } else if (block.type === "tool_use" && typeof block.id === "string") {
      s.pending[`#${block.id}`] = {
        ...describeTool(str(block.name) ?? "unknown", block.input, s.cwd),
        started: callStart(statedTime(line.timestamp), at),
      };
    }
  }
  return out;
}

function parseUser(line: Json, state: ParseState, at: LineTime): WorkerEvent[] {
  const s = scratchOf(state);
  const time = at.time;
  // Each tool result line states when it was made: after its call wrote what it wrote.
  const stated = statedTime(line.timestamp);
  const message = isObject(line.message) ? line.message : {};
  const content = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  const out: WorkerEvent[] = [];
  for (const block of content) {
    if (block.type !== "tool_result") continue;
    const id = str(block.tool_use_id) ?? "";
    const pending = lookup(s.pending, `#${id}`) ??
      { tool: "unknown", kind: "other" as const, target: "" };
    delete s.pending[`#${id}`];
    const failed = block.is_error === true;
    const error = failed ? cleanError(resultText(block.content)) : "";
    // A tool the profile removed (`--tools`) is refused with no `permission_denied` line.
    const removed = failed && REMOVED_TOOL.test(error);
    if (removed) out.push(event("worker.denied", time, { tool: pending.tool, message: error }));
    const denied = removed || s.denied.includes(id);
    s.denied = s.denied.filter((d) => d !== id);
    const status = denied ? "denied" : failed ? "error" : "ok";
    const ended = pending.started === undefined ? undefined : callEnd(stated, at, pending.started);
    out.push(event("worker.tool_call", time, {
      ...pending,
      status,
      ...(failed ? { error } : {}),
      ...(ended === undefined ? {} : { ended }),
    }));
  }
  return out;
}

function parseSystem(line: Json, state: ParseState, time: number): WorkerEvent[] | null {
  const s = scratchOf(state);
  switch (line.subtype) {
    case "init": {
      s.cwd = str(line.cwd) ?? null;
      const sessionId = str(line.session_id);
      return sessionId === undefined ? [] : [event("worker.session", time, { sessionId })];
    }
    case "permission_denied": {
      const id = str(line.tool_use_id);
      if (id !== undefined) s.denied.push(id);
      return [event("worker.denied", time, {
        tool: str(line.tool_name) ?? "unknown",
        message: oneLine(str(line.message) ?? "", ERROR_CHARS),
      })];
    }
    case "thinking_tokens": {
      // A running estimate for the current model call: its delta is reasoning counted now; the
      // `result` line settles the run's reasoning against it.
      const delta = count(line.estimated_tokens_delta);
      s.thinking += delta;
      if (delta === 0) return [];
      s.counted = add(s.counted, { input: 0, output: 0, cached: 0, reasoning: delta });
      return [event("worker.tokens", time, { input: 0, output: 0, cached: 0, reasoning: delta })];
    }
    case "api_retry": {
      const attempt = count(line.attempt);
      const status = httpStatus(line.error_status);
      const hint = providerDelay(attempt, count(line.retry_delay_ms));
      if (hint !== null) s.retryHintMs = hint;
      const name = str(line.error) ?? "api_retry";
      return [event("worker.error", time, {
        message: `API retry ${attempt}/${count(line.max_retries)}: ${name}${
          status === undefined ? "" : ` (${status})`
        }`,
        ...(status === undefined ? {} : { status }),
        retryable: true,
        name,
        ...(hint === null ? {} : { retryAfterMs: hint }),
      })];
    }
    default:
      return null;
  }
}

function parseResult(line: Json, state: ParseState, time: number): WorkerEvent[] {
  const s = scratchOf(state);
  const out: WorkerEvent[] = [];
  const total = usageOf(line.usage, s.thinking);
  const rest: Totals = {
    input: Math.max(0, total.input - s.counted.input),
    output: Math.max(0, total.output - s.counted.output),
    cached: Math.max(0, total.cached - s.counted.cached),
    reasoning: Math.max(0, total.reasoning - s.counted.reasoning),
  };
  s.counted = add(s.counted, rest);
  const cost = runCost(line);
  if (!isZero(rest) || (cost !== undefined && cost > 0)) {
    out.push(event("worker.tokens", time, { ...rest, ...(cost === undefined ? {} : { cost }) }));
  }
  const text = str(line.result);
  if (line.is_error !== true) {
    out.push(event("worker.answer", time, { text: text ?? "" }));
    return out;
  }
  const errors = Array.isArray(line.errors) ? line.errors.filter((e) => typeof e === "string") : [];
  const message = text ??
    (errors.join("; ") || `claude ended with ${str(line.subtype) ?? "an error"}`);
  const status = httpStatus(line.api_error_status);
  const hint = retryHintMs(message) ?? s.retryHintMs;
  out.push(event("worker.error", time, {
    message: oneLine(message, ERROR_CHARS),
    ...(status === undefined ? {} : { status }),
    retryable: false,
    name: s.apiErrorType ?? str(line.terminal_reason) ?? str(line.subtype) ?? "error",
    ...(hint === null ? {} : { retryAfterMs: hint }),
  }));
  return out;
}

/**
 * Turns one stdout line of claude into events (pure; `state` is the caller's). A tool call starts
 * at the `timestamp` of its `assistant` line and ends at that of its `tool_result` line (claude
 * 2.1 stamps both with its clock: the message was made before the call ran, the result after).
 */
export function parseClaudeLine(line: string, state: ParseState, at: LineTime): WorkerEvent[] {
  const time = at.time;
  const value = parseJsonObject(line);
  const unknown = () => [event("worker.unknown", time, { raw: rawOf(line) })];
  if (value === null) return unknown();
  switch (value.type) {
    case "assistant":
      return parseAssistant(value, state, at);
    case "user":
      return parseUser(value, state, at);
    case "result":
      return parseResult(value, state, time);
    case "system":
      return parseSystem(value, state, time) ?? unknown();
    default:
      return unknown();
  }
}
