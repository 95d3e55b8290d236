/**
 * The codex line parser (pure): `codex exec --json` lines and the stderr lines where codex
 * reports refused tool calls, turned into worker events.
 *
 * Stdout: `thread.started` -> session; `turn.started` -> step; `item.completed` with an
 * `agent_message` -> text (the last one of a turn becomes the answer at `turn.completed`),
 * `reasoning`, `command_execution` (kind from the command: cat/sed/head -> read, rg/grep -> search,
 * ls/find -> list, curl/wget -> web, else shell; a sandbox refusal in its output -> denied),
 * `file_change` -> edit/write, `web_search` -> web, `mcp_tool_call` -> other, `error` -> a
 * warning; `turn.completed` usage is cumulative over the thread, so tokens are the difference from
 * the previous totals; `error` and `turn.failed` -> errors. Stderr: `ERROR
 * codex_core::tools::router: ...` (a rejected patch, an unsupported tool) -> denied.
 *
 * Codex states no times: a call starts at the bound of its `item.started` line (`LineTime.since`,
 * the moment the read before it was asked for, which a whole model call usually separates from the
 * call; codex's printer gets the item from an event the agent sends as it begins the call, so the
 * line itself may come a moment after the call began), else at the bound of the line before its
 * `item.completed`.
 *
 * Scratch keys: `usageTotals` (the thread's totals after the last turn; the engine stores them to
 * seed a follow-up), `priorUsage` (set by the engine for a resumed session: the totals the thread
 * had before this attempt), `lastMessage` (the turn's latest agent message), `started` (the
 * starts of calls begun and not done, by `#` + item id), `lastSince` (the previous line's bound).
 */
import { event, type ToolKind, type WorkerEvent } from "../../events/mod.ts";
import type { LineTime, ParseState } from "../types.ts";
import {
  count,
  isObject,
  type Json,
  lookup,
  parseJsonObject,
  rawOf,
  str as text,
} from "../_json.ts";
import { oneLine } from "../../sys/text.ts";

/** Token totals of a codex thread, as `turn.completed` reports them. */
export interface CodexUsage {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

const TARGET_CHARS = 160;
const ZERO: CodexUsage = { input: 0, cached: 0, output: 0, reasoning: 0 };

function str(value: unknown): string {
  return text(value) ?? "";
}

/** A fresh parse state. */
export function newCodexState(): ParseState {
  return { steps: 0, scratch: {} };
}

/** Reads usage totals from scratch (`usageTotals`, else `priorUsage`), zero when absent. */
export function usageFrom(value: unknown): CodexUsage | null {
  if (!isObject(value)) return null;
  return {
    input: count(value.input),
    cached: count(value.cached),
    output: count(value.output),
    reasoning: count(value.reasoning),
  };
}

/** The command inside codex's `/bin/bash -lc '...'` wrapper (or the command as it is). */
export function unwrapCommand(command: string): string {
  const match = /^\S*\/?(?:ba|z)?sh -l?c (.*)$/s.exec(command);
  if (match === null || match[1] === undefined) return command;
  const inner = match[1];
  if (inner.startsWith("'") && inner.endsWith("'")) {
    return inner.slice(1, -1).replaceAll(`'\\''`, "'");
  }
  if (inner.startsWith(`"`) && inner.endsWith(`"`)) {
    return inner.slice(1, -1).replace(/\\(["\\$`])/g, "$1");
  }
  return inner;
}

const KIND_BY_PROGRAM: Record<string, ToolKind> = {
  cat: "read",
  head: "read",
  tail: "read",
  sed: "read",
  nl: "read",
  less: "read",
  wc: "read",
  rg: "search",
  grep: "search",
  ag: "search",
  ls: "list",
  find: "list",
  tree: "list",
  fd: "list",
  curl: "web",
  wget: "web",
};

/** The tool kind of a shell command, from its first program. */
export function commandKind(command: string): ToolKind {
  const program = command.trim().split(/\s+/)[0]?.split("/").at(-1) ?? "";
  if (program === "rg" && /\s--files\b/.test(command)) return "list";
  if (program === "sed" && !/\s-n\b/.test(command)) return "shell";
  return lookup(KIND_BY_PROGRAM, program) ?? "shell";
}

/** Output of a sandboxed command that tells a refusal by codex's sandbox. */
const SANDBOX_REFUSAL = /Read-only file system|Operation not permitted/;

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1)?.trim() ?? "";
}

function commandEvents(item: Json, time: number): WorkerEvent[] {
  const command = unwrapCommand(str(item.command));
  const kind = commandKind(command);
  const output = str(item.aggregated_output);
  const exit = item.exit_code;
  const ok = str(item.status) === "completed" && (exit === 0 || exit === undefined);
  const target = oneLine(command, TARGET_CHARS);
  if (ok) {
    return [event("worker.tool_call", time, { tool: "exec_command", kind, target, status: "ok" })];
  }
  const refusal = output.split("\n").find((line) => SANDBOX_REFUSAL.test(line));
  if (refusal !== undefined) {
    const message = oneLine(refusal, TARGET_CHARS);
    return [
      event("worker.tool_call", time, {
        tool: "exec_command",
        kind,
        target,
        status: "denied",
        error: message,
      }),
      event("worker.denied", time, { tool: "exec_command", message }),
    ];
  }
  const error = oneLine(lastLine(output) || `exit code ${String(exit)}`, TARGET_CHARS);
  return [
    event("worker.tool_call", time, { tool: "exec_command", kind, target, status: "error", error }),
  ];
}

function fileChangeEvents(item: Json, time: number): WorkerEvent[] {
  const changes = Array.isArray(item.changes) ? item.changes.filter(isObject) : [];
  const paths = changes.map((change) => str(change.path));
  const allAdded = changes.length > 0 && changes.every((change) => change.kind === "add");
  const failed = str(item.status) === "failed";
  return [
    event("worker.tool_call", time, {
      tool: "apply_patch",
      kind: allAdded ? "write" : "edit",
      target: oneLine(paths.join(" "), TARGET_CHARS),
      status: failed ? "error" : "ok",
      ...(failed ? { error: "patch failed" } : {}),
    }),
  ];
}

function itemEvents(item: Json, state: ParseState, time: number): WorkerEvent[] | null {
  switch (item.type) {
    case "agent_message": {
      const text = str(item.text);
      state.scratch.lastMessage = text;
      return [event("worker.text", time, { text })];
    }
    case "reasoning":
      return [event("worker.reasoning", time, { text: str(item.text) })];
    case "command_execution":
      return commandEvents(item, time);
    case "file_change":
      return fileChangeEvents(item, time);
    case "web_search": {
      const action = isObject(item.action) ? item.action : {};
      const target = str(action.url) || str(item.query);
      return [
        event("worker.tool_call", time, {
          tool: "web_search",
          kind: "web",
          target: oneLine(target, TARGET_CHARS),
          status: "ok",
        }),
      ];
    }
    case "mcp_tool_call": {
      const failed = str(item.status) === "failed";
      return [
        event("worker.tool_call", time, {
          tool: `${str(item.server)}.${str(item.tool)}`,
          kind: "other",
          target: oneLine(`${str(item.server)}.${str(item.tool)}`, TARGET_CHARS),
          status: failed ? "error" : "ok",
        }),
      ];
    }
    case "todo_list":
      return [];
    case "error":
      // A warning item (unknown model metadata and the like): the run goes on.
      return [event("worker.error", time, { message: str(item.message), name: "warning" })];
    default:
      return null;
  }
}

function tokensEvent(usage: Json, state: ParseState, time: number): WorkerEvent {
  const totals: CodexUsage = {
    input: count(usage.input_tokens),
    cached: count(usage.cached_input_tokens),
    output: count(usage.output_tokens),
    reasoning: count(usage.reasoning_output_tokens),
  };
  const before = usageFrom(state.scratch.usageTotals) ?? usageFrom(state.scratch.priorUsage) ??
    ZERO;
  state.scratch.usageTotals = { ...totals };
  const delta = (key: keyof CodexUsage) => Math.max(0, totals[key] - before[key]);
  const cached = delta("cached");
  const reasoning = delta("reasoning");
  // Codex counts cached tokens inside input and reasoning inside output; events keep them apart.
  return event("worker.tokens", time, {
    input: Math.max(0, delta("input") - cached),
    output: Math.max(0, delta("output") - reasoning),
    cached,
    reasoning,
  });
}

/** HTTP status named in a codex error message ("last status: 429", "unexpected status 401"). */
export function statusIn(message: string): number | undefined {
  const match = /\bstatus:? (\d{3})\b/.exec(message);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function errorEvent(message: string, name: string, time: number): WorkerEvent {
  const status = statusIn(message);
  const retrying = /^Reconnecting\.\.\./.test(message);
  return event("worker.error", time, {
    message,
    name,
    ...(status === undefined ? {} : { status }),
    ...(retrying ? { retryable: true } : {}),
  });
}

/** Turns one stdout line of `codex exec --json` into events. */
export function parseCodexLine(line: string, state: ParseState, at: LineTime): WorkerEvent[] {
  const before = state.scratch.lastSince;
  state.scratch.lastSince = at.since;
  return lineEvents(line, state, at, typeof before === "number" ? before : at.since);
}

function lineEvents(
  line: string,
  state: ParseState,
  at: LineTime,
  before: number,
): WorkerEvent[] {
  const time = at.time;
  const value = parseJsonObject(line);
  const unknown = () => [event("worker.unknown", time, { raw: rawOf(line) })];
  if (value === null) return unknown();
  switch (value.type) {
    case "thread.started":
      return [event("worker.session", time, { sessionId: str(value.thread_id) })];
    case "turn.started":
      state.scratch.lastMessage = null;
      return [event("worker.step", time, { index: state.steps++ })];
    case "item.started": {
      // When a command or patch started: its completed call carries it.
      const id = isObject(value.item) ? str(value.item.id) : "";
      if (id !== "") {
        const starts = isObject(state.scratch.started) ? state.scratch.started : {};
        state.scratch.started = { ...starts, [`#${id}`]: at.since };
      }
      return [];
    }
    case "item.updated":
      return [];
    case "item.completed": {
      if (!isObject(value.item)) break;
      const events = itemEvents(value.item, state, time);
      if (events === null) return unknown();
      const starts = isObject(state.scratch.started) ? state.scratch.started : {};
      const key = `#${str(value.item.id)}`;
      const begun = starts[key];
      delete starts[key];
      // A call seen only done: the bound of the line before its report is the best there is.
      const started = typeof begun === "number" ? begun : before;
      return events.map((ev) => ev.type === "worker.tool_call" ? { ...ev, started } : ev);
    }
    case "turn.completed": {
      const out: WorkerEvent[] = [];
      if (isObject(value.usage)) out.push(tokensEvent(value.usage, state, time));
      const answer = state.scratch.lastMessage;
      if (typeof answer === "string") out.push(event("worker.answer", time, { text: answer }));
      return out;
    }
    case "turn.failed": {
      const error = isObject(value.error) ? value.error : {};
      return [errorEvent(str(error.message), "turn_failed", time)];
    }
    case "error":
      return [errorEvent(str(value.message), "stream_error", time)];
  }
  return unknown();
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
const ROUTER = /\bERROR codex_core::tools::router: (?:error=)?(.*)$/;

/** The tool a router refusal is about. */
function refusedTool(message: string): { tool: string; kind: ToolKind; target: string } {
  if (/^patch rejected/i.test(message)) {
    return { tool: "apply_patch", kind: "edit", target: "apply_patch" };
  }
  const unsupported = /unsupported (?:custom )?(?:tool )?call: ?(\S+)/i.exec(message);
  if (unsupported?.[1] !== undefined) {
    const tool = unsupported[1];
    const kind: ToolKind = tool === "apply_patch"
      ? "edit"
      : /web/.test(tool)
      ? "web"
      : /exec|shell/.test(tool)
      ? "shell"
      : "other";
    return { tool, kind, target: tool };
  }
  if (/command|exec/i.test(message)) return { tool: "exec_command", kind: "shell", target: "" };
  return { tool: "unknown", kind: "other", target: "" };
}

/** Turns one stderr line of codex into events: tool refusals, which codex reports only there. */
export function parseCodexStderr(
  line: string,
  _state: ParseState,
  { time }: LineTime,
): WorkerEvent[] {
  const match = ROUTER.exec(line.replace(ANSI, ""));
  if (match?.[1] === undefined) return [];
  const message = oneLine(match[1], TARGET_CHARS);
  const { tool, kind, target } = refusedTool(message);
  return [
    event("worker.tool_call", time, {
      tool,
      kind,
      target: target || message,
      status: "denied",
      error: message,
    }),
    event("worker.denied", time, { tool, message }),
  ];
}
