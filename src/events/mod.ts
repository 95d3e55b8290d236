/**
 * The closed event union: every event Pitroom writes to an events file, streams over SSE or MCP,
 * or prints with `--json` is defined here once. A definition gives the TypeScript type, the
 * runtime validator and the field docs. Worker parsers emit `worker.*` events; the engine emits
 * `run.*` events. A line no parser recognises becomes an explicit `worker.unknown`.
 */
import {
  arr,
  bool,
  checkShape,
  count,
  type Infer,
  num,
  obj,
  oneOf,
  opt,
  type Shape,
  str,
} from "./schema.ts";

/** Kinds of tool call, the same for every backend. */
export const TOOL_KINDS = [
  "read",
  "search",
  "list",
  "edit",
  "write",
  "shell",
  "web",
  "task",
  "other",
] as const;
/** A normalized tool kind. */
export type ToolKind = typeof TOOL_KINDS[number];

/** Run states. `queued` and `running` are live; the rest are final. */
export const RUN_STATES = ["queued", "running", "done", "problem", "lost"] as const;
/** A run state. */
export type RunState = typeof RUN_STATES[number];

/** How a worker attempt or run ended. */
export const OUTCOME_CLASSES = [
  "ok",
  "failed",
  "model_not_found",
  "rate_limited",
  "quota",
  "auth",
  "timeout",
  "stopped",
  "read_only_violation",
  "refused",
  "verify_failed",
  "capped",
] as const;
/** An outcome class. */
export type OutcomeClass = typeof OUTCOME_CLASSES[number];

/**
 * What acted on a finished run's record (`run.changed`): its work applied, reverted or discarded
 * (a try cut short or refused included), or an audit or review of it that started or ended.
 */
export const RUN_CHANGES = ["apply", "revert", "discard", "audit", "review"] as const;
/** What one did to a finished run. */
export type RunChange = typeof RUN_CHANGES[number];

/**
 * What became of a finished run's work: an answer from the cache, an isolate patch applied, one
 * not applied yet, a private copy discarded, changes taken back out of the user's tree.
 */
export const WORK_STATES = ["cached", "applied", "not-applied", "discarded", "reverted"] as const;
/** What became of a run's work. */
export type WorkState = typeof WORK_STATES[number];

const tokens = obj({
  input: count,
  output: count,
  cached: count,
  reasoning: count,
});

/** Every event, by its `type`. */
export const EVENTS = {
  // ---- worker events: what a backend's parser makes of one line of its CLI's stream
  "worker.session": { sessionId: str },
  "worker.step": { index: opt(num) },
  "worker.text": { text: str },
  "worker.reasoning": { text: str },
  "worker.tool_call": {
    tool: str,
    kind: oneOf(TOOL_KINDS),
    target: str,
    status: oneOf(["ok", "error", "denied"] as const),
    error: opt(str),
    /**
     * A moment the call certainly started after (ms since the epoch): the time the CLI states for
     * it where that can be true, else the moment the line announcing it was certainly written
     * after (never when that line was read: a busy host reads it late). The event's time is when
     * the call was reported done.
     */
    started: opt(num),
    /** When the call ended, where the CLI states it (before it was reported). */
    ended: opt(num),
  },
  "worker.denied": { tool: str, message: str },
  "worker.tokens": {
    input: count,
    output: count,
    cached: count,
    reasoning: count,
    cost: opt(count),
  },
  "worker.answer": { text: str },
  "worker.error": {
    message: str,
    status: opt(num),
    retryable: opt(bool),
    name: opt(str),
    retryAfterMs: opt(count),
  },
  "worker.unknown": { raw: str },
  // ---- run events: what the engine reports about a run
  "run.queued": { run: str, position: num },
  "run.started": { run: str, worker: str, model: opt(str), mode: str, attempt: num },
  "run.progress": {
    run: str,
    steps: num,
    tools: num,
    /** Tool calls that were refused (a subset of `tools`). */
    denied: opt(count),
    last: opt(str),
    tokens: tokens,
  },
  "run.skipped": { run: str, target: str, until: num },
  "run.parked": { run: str, until: num },
  "run.fallback": { run: str, from: str, to: str, reason: oneOf(OUTCOME_CLASSES), message: str },
  "run.finished": {
    run: str,
    state: oneOf(RUN_STATES),
    outcome: oneOf(OUTCOME_CLASSES),
    exit: num,
    message: opt(str),
    changed: opt(arr(str)),
  },
  "run.lost": { run: str, reason: str },
  /**
   * A finished run's record changed after its end (written to the state dir's change journal,
   * not to its events file): `by` says what acted on it, `work` what became of its work then
   * (absent: nothing to say). Its record has the rest (a verdict, the files applied).
   */
  "run.changed": { run: str, by: oneOf(RUN_CHANGES), work: opt(oneOf(WORK_STATES)) },
} as const satisfies Record<string, Shape>;

/** An event type name. */
export type EventType = keyof typeof EVENTS;

/** One event of the union, discriminated by `type`. `time` is ms since the epoch. */
export type PitroomEvent = {
  [K in EventType]: { type: K; time: number } & Infer<typeof EVENTS[K]>;
}[EventType];

/** The event of one type. */
export type EventOf<K extends EventType> = Extract<PitroomEvent, { type: K }>;

/** A worker event: what a parser emits. */
export type WorkerEvent = Extract<PitroomEvent, { type: `worker.${string}` }>;

/** Builds an event with its time. */
export function event<K extends EventType>(
  type: K,
  time: number,
  fields: Infer<typeof EVENTS[K]>,
): EventOf<K> {
  return { type, time, ...fields } as unknown as EventOf<K>;
}

/** True when `value` is a valid event of the union. */
export function isEvent(value: unknown): value is PitroomEvent {
  if (typeof value !== "object" || value === null) return false;
  const { type, time } = value as { type?: unknown; time?: unknown };
  if (typeof type !== "string" || !Object.hasOwn(EVENTS, type) || typeof time !== "number") {
    return false;
  }
  return checkShape(EVENTS[type as EventType], value);
}

/** Parses one JSON line into an event, or returns null when it is not one. */
export function parseEventLine(line: string): PitroomEvent | null {
  try {
    const value: unknown = JSON.parse(line);
    return isEvent(value) ? value : null;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}

/** Field docs of every event, for `--json` documentation. */
export function describeEvents(): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [type, shape] of Object.entries(EVENTS)) {
    out[type] = Object.fromEntries(
      Object.entries(shape as Shape).map((
        [k, f],
      ) => [k, f.optional ? `${f.describe}?` : f.describe]),
    );
  }
  return out;
}
