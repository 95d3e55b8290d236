/**
 * Turns `opencode run --format json` lines into worker events (pure). Every line has `type`,
 * `timestamp` and `sessionID`; `part` carries the step, text, reasoning or tool part and `error`
 * the failure. The answer is the text of the step whose `step_finish` reason is "stop". A tool
 * the profile removed shows up as tool `invalid` (or as an error naming the unavailable tool),
 * without the call's arguments, so its target is empty; a pattern rule shows up as an error
 * "...rule which prevents you..." and an auto-rejected ask as "The user rejected permission...":
 * all are denials. An auto-rejected ask is also logged on stderr ("permission requested: ...;
 * auto-rejecting"); the stream's call and the stderr line are one refusal, so whichever comes
 * second adds nothing (stdout and stderr are read apart: either may be first).
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
} from "../_json.ts";
import { oneLine } from "../../sys/text.ts";

/** OpenCode's tools by kind. */
export const OPENCODE_TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
  read: "read",
  glob: "search",
  grep: "search",
  list: "list",
  edit: "edit",
  multiedit: "edit",
  patch: "edit",
  apply_patch: "edit",
  write: "write",
  bash: "shell",
  webfetch: "web",
  websearch: "web",
  codesearch: "web",
  task: "task",
};

const TARGET_CHARS = 160;

/** What a tool call was aimed at: its path, pattern, command or URL. */
export function toolTarget(tool: string, input: Json): string {
  const path = str(input.filePath) ?? str(input.path);
  switch (lookup(OPENCODE_TOOL_KINDS, tool)) {
    case "read":
    case "edit":
    case "write":
    case "list":
      return oneLine(path ?? "", TARGET_CHARS, { keepEnd: true });
    case "search": {
      const pattern = str(input.pattern) ?? "";
      return oneLine(path === undefined ? pattern : `${pattern} in ${path}`, TARGET_CHARS);
    }
    case "shell":
      return oneLine(str(input.command) ?? "", TARGET_CHARS);
    case "web":
      return oneLine(str(input.url) ?? str(input.query) ?? "", TARGET_CHARS);
    case "task":
      return oneLine(str(input.description) ?? str(input.prompt) ?? "", TARGET_CHARS);
    default:
      return oneLine(str(input.name) ?? path ?? str(input.description) ?? "", TARGET_CHARS);
  }
}

const UNAVAILABLE = /unavailable tool '([^']+)'/;
const RULE = /rule which prevents you from using this specific tool call/;
const REJECTED = /user rejected permission/i;

/** A denial message without the JSON dump of rules OpenCode appends. */
function denialMessage(text: string): string {
  return oneLine(text.replace(/\s*Here are some of the relevant rules[\s\S]*$/, ""), TARGET_CHARS);
}

/**
 * The events of a `tool_use` line. OpenCode prints a call only once it is done (and its lines
 * reach stdout through its event bus, after what they report may have happened), so a call's
 * start is the part's own `time.start`; when that is missing or not believable, the bound of the
 * step's first line is the best the stream gives.
 */
function toolEvents(part: Json, scratch: Scratch, at: LineTime): WorkerEvent[] {
  const time = at.time;
  const state = isObject(part.state) ? part.state : {};
  const input = isObject(state.input) ? state.input : {};
  const status = str(state.status);
  let tool = str(part.tool) ?? "unknown";
  let error = str(state.error);
  if (tool === "invalid") {
    // A call of a tool the model was not offered: the real name is in the input.
    tool = str(input.tool) ?? tool;
    error = str(input.error) ?? str(state.output) ?? error;
  }
  const denied = error !== undefined &&
    (UNAVAILABLE.test(error) || RULE.test(error) || REJECTED.test(error));
  const failed = denied || status === "error" || str(part.tool) === "invalid";
  const kind = lookup(OPENCODE_TOOL_KINDS, tool) ?? "other";
  const times = isObject(state.time) ? state.time : {};
  const started = callStart(statedTime(times.start), {
    ...at,
    since: Math.min(scratch.stepSince ?? at.since, at.since),
  });
  const ended = callEnd(statedTime(times.end), at, started);
  const call = event("worker.tool_call", time, {
    tool,
    kind,
    target: toolTarget(tool, input),
    status: denied ? "denied" : failed ? "error" : "ok",
    ...(failed && error !== undefined ? { error: denialMessage(error) } : {}),
    started,
    ...(ended === undefined ? {} : { ended }),
  });
  if (!denied || error === undefined) return [call];
  if (REJECTED.test(error) && take(scratch, "loggedAsks", tool)) {
    // The stderr line of this ask came first and made the refusal's events already.
    return [];
  }
  if (REJECTED.test(error)) give(scratch, "streamedAsks", tool);
  return [call, event("worker.denied", time, { tool, message: denialMessage(error) })];
}

/** Counts of asks, by tool, one side has reported and the other has not yet. */
type AskCounts = Record<string, number>;

function give(scratch: Scratch, key: "loggedAsks" | "streamedAsks", tool: string): void {
  const counts = (scratch[key] ??= {});
  counts[`#${tool}`] = (lookup(counts, `#${tool}`) ?? 0) + 1;
}

/** Takes one ask of `tool` the other side reported; false when there is none. */
function take(scratch: Scratch, key: "loggedAsks" | "streamedAsks", tool: string): boolean {
  const counts = scratch[key] ?? {};
  const n = lookup(counts, `#${tool}`) ?? 0;
  if (n === 0) return false;
  counts[`#${tool}`] = n - 1;
  return true;
}

/** A wait the provider asked for, in ms, from a message ("try again in 1m30s", "retry in 2s"). */
export function retryAfterFromText(text: string): number | undefined {
  const found = /(?:try again|retry) in\s+((?:\d+(?:\.\d+)?\s*(?:ms|h|m|s)\s*)+)/i.exec(text);
  if (found?.[1] === undefined) return undefined;
  let ms = 0;
  for (const [, value, unit] of found[1].matchAll(/(\d+(?:\.\d+)?)\s*(ms|h|m|s)/g)) {
    const n = Number(value);
    ms += unit === "h" ? n * 3_600_000 : unit === "m" ? n * 60_000 : unit === "s" ? n * 1000 : n;
  }
  return amount(Math.round(ms));
}

function headerRetryAfter(headers: unknown): number | undefined {
  if (!isObject(headers)) return undefined;
  const ms = amount(Number.parseFloat(str(headers["retry-after-ms"]) ?? ""));
  if (ms !== undefined) return ms;
  const s = amount(Number.parseFloat(str(headers["retry-after"]) ?? ""));
  return s === undefined ? undefined : amount(s * 1000);
}

/** The provider's error code from a response body (`{error:{code|type|status}}`), if any. */
function bodyCode(body: string): string | undefined {
  try {
    const value: unknown = JSON.parse(body);
    const error = isObject(value) && isObject(value.error) ? value.error : {};
    return str(error.code) ?? str(error.status) ?? str(error.type);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** The message plus what the body adds: its error code, or the body when it is not JSON. */
function errorText(message: string, body: string): string {
  if (body === "" || message.includes(body)) return message;
  const code = bodyCode(body);
  if (code !== undefined) return message.includes(code) ? message : `${message} (${code})`;
  return body.includes(message) ? body : `${message}: ${body}`;
}

function errorEvent(error: Json, time: number): WorkerEvent {
  const data = isObject(error.data) ? error.data : {};
  const name = str(error.name);
  const body = str(data.responseBody) ?? "";
  const message = str(data.message) ?? name ?? "Unknown error";
  const status = httpStatus(data.statusCode);
  const retryAfterMs = headerRetryAfter(data.responseHeaders) ?? retryAfterFromText(message) ??
    retryAfterFromText(body);
  return event("worker.error", time, {
    message: oneLine(errorText(message, body), 300),
    ...(status === undefined ? {} : { status }),
    ...(typeof data.isRetryable === "boolean" ? { retryable: data.isRetryable } : {}),
    ...(name === undefined ? {} : { name }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

interface Scratch {
  session?: string;
  text?: string[];
  /** The bound of the current step's `step_start` line (`LineTime.since`). */
  stepSince?: number;
  /** Auto-rejected asks seen on stderr whose stream call has not come yet. */
  loggedAsks?: AskCounts;
  /** Auto-rejected asks seen in the stream whose stderr line has not come yet. */
  streamedAsks?: AskCounts;
}

/** Turns one line of OpenCode's JSON stream into events. */
export function parseOpencodeLine(line: string, state: ParseState, at: LineTime): WorkerEvent[] {
  const time = at.time;
  const value = parseJsonObject(line);
  if (value === null || typeof value.type !== "string") {
    return [event("worker.unknown", time, { raw: rawOf(line) })];
  }
  const scratch = state.scratch as Scratch;
  const out: WorkerEvent[] = [];
  const session = str(value.sessionID);
  if (session !== undefined && session !== scratch.session) {
    scratch.session = session;
    out.push(event("worker.session", time, { sessionId: session }));
  }
  const part = isObject(value.part) ? value.part : {};
  switch (value.type) {
    case "step_start":
      scratch.text = [];
      scratch.stepSince = at.since;
      out.push(event("worker.step", time, { index: state.steps }));
      state.steps++;
      return out;
    case "text": {
      const text = str(part.text) ?? "";
      scratch.text = [...(scratch.text ?? []), text];
      out.push(event("worker.text", time, { text }));
      return out;
    }
    case "reasoning":
      out.push(event("worker.reasoning", time, { text: str(part.text) ?? "" }));
      return out;
    case "tool_use":
      out.push(...toolEvents(part, scratch, at));
      return out;
    case "step_finish": {
      const tokens = isObject(part.tokens) ? part.tokens : {};
      const cache = isObject(tokens.cache) ? tokens.cache : {};
      out.push(event("worker.tokens", time, {
        // `input` excludes cached reads; cache writes are billed as input.
        input: count(tokens.input) + count(cache.write),
        output: count(tokens.output),
        cached: count(cache.read),
        reasoning: count(tokens.reasoning),
        ...(amount(part.cost) === undefined ? {} : { cost: amount(part.cost) as number }),
      }));
      const text = (scratch.text ?? []).join("\n\n").trim();
      if (part.reason === "stop" && text !== "") {
        out.push(event("worker.answer", time, { text }));
      }
      scratch.text = [];
      return out;
    }
    case "error":
      out.push(errorEvent(isObject(value.error) ? value.error : {}, time));
      return out;
    default:
      out.push(event("worker.unknown", time, { raw: rawOf(line) }));
      return out;
  }
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Turns a stderr line into events. With `--print-logs --log-level WARN` OpenCode logs its
 * errors there (`level=ERROR ... message=failed ... error="ProviderModelNotFoundError: ..."`),
 * which its stream only reports as "Unexpected server error"; it also prints a line when it
 * auto-rejects a permission ask or falls back to its default agent.
 */
export function parseOpencodeStderr(
  line: string,
  state: ParseState,
  { time }: LineTime,
): WorkerEvent[] {
  const plain = line.replace(ANSI, "").trim();
  const asked = /permission requested: (\S+) \((.*)\); auto-rejecting/.exec(plain);
  if (asked) {
    const tool = asked[1] ?? "unknown";
    const scratch = state.scratch as Scratch;
    // The stream reported this refusal already.
    if (take(scratch, "streamedAsks", tool)) return [];
    give(scratch, "loggedAsks", tool);
    const message = oneLine(`permission asked and auto-rejected: ${asked[2] ?? ""}`, TARGET_CHARS);
    return [
      event("worker.tool_call", time, {
        tool,
        kind: lookup(OPENCODE_TOOL_KINDS, tool) ?? "other",
        target: oneLine(asked[2] ?? "", TARGET_CHARS),
        status: "denied",
        error: message,
      }),
      event("worker.denied", time, { tool, message }),
    ];
  }
  if (/agent "[^"]+" (?:not found|is a subagent)/.test(plain)) {
    return [
      event("worker.error", time, {
        message: oneLine(plain.replace(/^!\s*/, ""), TARGET_CHARS),
        name: "AgentMissing",
      }),
    ];
  }
  // The server's catch-all log line; other ERROR lines repeat what the stream reports.
  if (/\blevel=ERROR\b.*\bmessage=failed\b/.test(plain)) {
    const error = /\berror="((?:[^"\\]|\\.)*)"/.exec(plain)?.[1];
    if (error === undefined) return [];
    const name = /^([A-Za-z]+Error):/.exec(error)?.[1];
    return [event("worker.error", time, {
      message: oneLine(error.replace(/\\n[\s\S]*$/, ""), TARGET_CHARS),
      ...(name === undefined ? {} : { name }),
    })];
  }
  return [];
}
