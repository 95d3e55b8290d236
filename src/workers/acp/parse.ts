/**
 * An ACP agent's reports turned into the event union (pure):
 * - `session/update` with `agent_message_chunk` -> text of the current model turn (chunks
 *   concatenated); `agent_thought_chunk` -> `worker.reasoning`;
 * - `tool_call` / `tool_call_update` -> one `worker.tool_call` when the call reaches `completed`
 *   or `failed`; a call Pitroom refused is told `denied` at the refusal (with `worker.denied`),
 *   and its later updates are not told again (an agent may report it failed, or never again);
 *   its kind comes from ACP's `kind`, its target from
 *   its locations, diffs, command or title; the first call or text after the prompt or after a
 *   finished call starts a step;
 * - the `session/prompt` result -> the last turn's text as `worker.text` and `worker.answer`, and
 *   `worker.tokens` only when the agent reports usage (ACP's `usage`, or Gemini CLI's
 *   `_meta.quota.token_count`): an agent that reports none leaves the run's tokens "not
 *   reported", never guessed;
 * - `plan`, `usage_update` (context size, not tokens spent), command, mode and config updates,
 *   and a replayed `user_message_chunk` -> nothing; any other update -> `worker.unknown`.
 */
import { event, type ToolKind, type WorkerEvent } from "../../events/mod.ts";
import type { LineTime } from "../types.ts";
import { count, isObject, type Json, lookup, rawOf, str } from "../_json.ts";
import { callStart } from "../_time.ts";
import { oneLine } from "../../sys/text.ts";
import { callCommand, callPaths } from "./policy.ts";

/** ACP tool kinds and Pitroom's. */
export const KINDS: Readonly<Record<string, ToolKind>> = {
  read: "read",
  edit: "edit",
  delete: "write",
  move: "write",
  search: "search",
  execute: "shell",
  think: "other",
  fetch: "web",
  other: "other",
};

/** Updates that say nothing about the run's work. */
const QUIET_UPDATES = new Set([
  "plan",
  "usage_update",
  "available_commands_update",
  "current_mode_update",
  "config_option_update",
  "session_info_update",
  "user_message_chunk",
]);

const TARGET_CHARS = 160;

interface Call {
  tool: string;
  kind: ToolKind;
  target: string;
  started: number;
}

/** What the parser keeps between lines. */
export interface ParseScratch {
  /** Text of the current model turn so far. */
  text: string;
  /** True between the first output of a model turn and the next finished call. */
  inTurn: boolean;
  /** Calls not finished yet, by `#` + id. */
  calls: Record<string, Call>;
  /** Calls told already (Pitroom refused them), by `#` + id. */
  told: Record<string, true>;
  /** Steps so far. */
  steps: number;
}

/** A fresh scratch. */
export function newScratch(): ParseScratch {
  return { text: "", inTurn: false, calls: {}, told: {}, steps: 0 };
}

function startStep(s: ParseScratch, time: number): WorkerEvent[] {
  if (s.inTurn) return [];
  s.inTurn = true;
  s.text = "";
  const index = s.steps++;
  return [event("worker.step", time, { index })];
}

/**
 * What a call acts on: a command's command line; else its first path (as given); else `known`
 * (what an earlier update of the call named); else its title.
 */
export function callTarget(call: Json, kind: ToolKind, known = ""): string {
  const command = kind === "shell" ? callCommand(call) : undefined;
  const target = command ?? callPaths(call)[0] ?? (known || undefined) ?? str(call.title) ?? "";
  return oneLine(target, TARGET_CHARS);
}

function textOf(content: unknown): string {
  return isObject(content) && content.type === "text" ? str(content.text) ?? "" : "";
}

/** The events of a call Pitroom refused (its permission request); the call is told then. */
export function refused(s: ParseScratch, call: Json, why: string, at: LineTime): WorkerEvent[] {
  const time = at.time;
  const id = `#${str(call.toolCallId) ?? ""}`;
  const known = lookup(s.calls, id);
  const out = known === undefined ? startStep(s, time) : [];
  const { tool, kind, target } = describe(call, known);
  delete s.calls[id];
  s.told[id] = true;
  s.inTurn = false;
  const message = `Pitroom refused it: ${why}`;
  return [
    ...out,
    event("worker.tool_call", time, {
      tool,
      kind,
      target,
      status: "denied",
      error: message,
      started: known?.started ?? callStart(undefined, at),
    }),
    event("worker.denied", time, { tool, message }),
  ];
}

function describe(update: Json, known: Call | undefined): Omit<Call, "started"> {
  const acpKind = str(update.kind);
  const kind = acpKind === undefined ? known?.kind ?? "other" : lookup(KINDS, acpKind) ?? "other";
  const tool = acpKind ?? known?.tool ?? "other";
  return { tool, kind, target: callTarget(update, kind, known?.target) };
}

function toolUpdate(s: ParseScratch, update: Json, at: LineTime): WorkerEvent[] {
  const time = at.time;
  const id = `#${str(update.toolCallId) ?? ""}`;
  if (lookup(s.told, id) === true) return [];
  const known = lookup(s.calls, id);
  const out = known === undefined ? startStep(s, time) : [];
  if (known === undefined && s.text !== "") {
    out.push(event("worker.text", time, { text: s.text }));
    s.text = "";
  }
  const call: Call = {
    ...describe(update, known),
    started: known?.started ?? callStart(undefined, at),
  };
  s.calls[id] = call;
  const status = str(update.status);
  if (status !== "completed" && status !== "failed") return out;
  delete s.calls[id];
  s.inTurn = false;
  const base = { tool: call.tool, kind: call.kind, target: call.target, started: call.started };
  if (status === "failed") {
    const error = failureText(update) ?? "the tool failed";
    out.push(event("worker.tool_call", time, { ...base, status: "error", error }));
  } else {
    out.push(event("worker.tool_call", time, { ...base, status: "ok" }));
  }
  return out;
}

function failureText(update: Json): string | undefined {
  if (Array.isArray(update.content)) {
    for (const item of update.content) {
      if (isObject(item) && item.type === "content") {
        const text = textOf(item.content);
        if (text !== "") return oneLine(text, 300);
      }
    }
  }
  const raw = isObject(update.rawOutput) ? update.rawOutput : {};
  const error = str(raw.error) ?? str(raw.message);
  return error === undefined ? undefined : oneLine(error, 300);
}

/** Turns one `session/update` notification's `update` into events. */
export function parseUpdate(
  s: ParseScratch,
  update: unknown,
  at: LineTime,
  raw: string,
): WorkerEvent[] {
  const time = at.time;
  if (!isObject(update)) return [event("worker.unknown", time, { raw: rawOf(raw) })];
  const kind = str(update.sessionUpdate) ?? "";
  switch (kind) {
    case "agent_message_chunk": {
      const out = startStep(s, time);
      s.text += textOf(update.content);
      return out;
    }
    case "agent_thought_chunk": {
      const text = textOf(update.content);
      return text === "" ? [] : [event("worker.reasoning", time, { text })];
    }
    case "tool_call":
    case "tool_call_update":
      return toolUpdate(s, update, at);
  }
  if (QUIET_UPDATES.has(kind)) return [];
  return [event("worker.unknown", time, { raw: rawOf(raw) })];
}

/** The tokens a prompt result reports, or null when it reports none. */
export function usageOf(result: Json): WorkerEvent | null {
  const usage = isObject(result.usage) ? result.usage : undefined;
  if (usage !== undefined) {
    const cached = count(usage.cachedReadTokens) + count(usage.cachedWriteTokens);
    const input = count(usage.inputTokens), output = count(usage.outputTokens);
    const reasoning = count(usage.thoughtTokens);
    // `inputTokens` holds the cached ones where the total leaves them out of the sum.
    const within = cached > 0 && count(usage.totalTokens) === input + output + reasoning;
    return event("worker.tokens", 0, {
      input: within ? Math.max(0, input - cached) : input,
      output,
      cached,
      reasoning,
    });
  }
  // Gemini CLI (0.61.0) reports the turn's tokens in its own `_meta.quota.token_count`.
  const meta = isObject(result._meta) ? result._meta : {};
  const quota = isObject(meta.quota) ? meta.quota : {};
  const tokens = isObject(quota.token_count) ? quota.token_count : undefined;
  if (tokens === undefined) return null;
  return event("worker.tokens", 0, {
    input: count(tokens.input_tokens),
    output: count(tokens.output_tokens),
    cached: 0,
    reasoning: 0,
  });
}

/** The events of the prompt's result: the last turn's text, the answer, the tokens. */
export function parseEnd(s: ParseScratch, result: Json, time: number): WorkerEvent[] {
  const out: WorkerEvent[] = [];
  const text = s.inTurn ? s.text : "";
  if (text !== "") out.push(event("worker.text", time, { text }));
  const tokens = usageOf(result);
  if (tokens !== null) out.push({ ...tokens, time });
  out.push(event("worker.answer", time, { text }));
  s.inTurn = false;
  s.text = "";
  return out;
}
