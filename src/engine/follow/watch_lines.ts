/**
 * The lines of `watch --json`, defined once: the TypeScript type, the runtime check and the
 * field list `pitroom help events` prints all come from `WATCH_LINES`. Each line is a JSON
 * object whose first key is `event`: `queued`, `started`, `progress`, `fallback`, `stalled` (a
 * running run's worker sent no event for its stall time; its next `progress` says it moved on),
 * one final line (`done` or `problem`) per run, `changed` when a run that ended changes while
 * others still go (applied, reverted, discarded, audited, reviewed: what did it, what became of
 * its work) and, once every run has ended, `all-done`.
 */
import {
  arr,
  checkShape,
  type Infer,
  num,
  oneOf,
  opt,
  type Shape,
  str,
} from "../../events/schema.ts";
import { RUN_CHANGES, WORK_STATES } from "../../events/mod.ts";

/** Every watch line, by its `event`. */
export const WATCH_LINES = {
  queued: { run: str, position: opt(num), task: str },
  started: { run: str, mode: str, task: str },
  progress: { run: str, steps: num, tools: num, last: opt(str) },
  fallback: { run: str, from: str, to: str, reason: str },
  /** The run waits (`--park`) until `until` (ms since the epoch) for its chain to come back. */
  parked: { run: str, until: num },
  stalled: { run: str, since: num, text: str },
  done: {
    run: str,
    time: str,
    worker: str,
    summary: str,
    refs: opt(str),
    changes: opt(arr(str)),
  },
  problem: {
    run: str,
    time: str,
    worker: str,
    summary: str,
    refs: opt(str),
    changes: opt(arr(str)),
    outcome: str,
    exit: num,
  },
  changed: { run: str, by: oneOf(RUN_CHANGES), work: opt(oneOf(WORK_STATES)) },
  "all-done": { runs: num, ok: num, failed: num },
} as const satisfies Record<string, Shape>;

/** A watch line's name. */
export type WatchLineName = keyof typeof WATCH_LINES;

/** One line of `watch --json`, discriminated by `event`. */
export type WatchLine = {
  [K in WatchLineName]: { event: K } & Infer<typeof WATCH_LINES[K]>;
}[WatchLineName];

/** The line of one name. */
export type WatchLineOf<K extends WatchLineName> = Extract<WatchLine, { event: K }>;

/** A run's final line. */
export type EndLine = WatchLineOf<"done" | "problem">;

/** Builds a line with `event` first, as the seed prints it. */
export function watchLine<K extends WatchLineName>(
  name: K,
  fields: Infer<typeof WATCH_LINES[K]>,
): WatchLineOf<K> {
  return { event: name, ...fields } as unknown as WatchLineOf<K>;
}

/** True when `value` is a valid watch line. */
export function isWatchLine(value: unknown): value is WatchLine {
  if (typeof value !== "object" || value === null) return false;
  const name = (value as { event?: unknown }).event;
  if (typeof name !== "string" || !Object.hasOwn(WATCH_LINES, name)) return false;
  return checkShape(WATCH_LINES[name as WatchLineName], value);
}

/** Field docs of every watch line, for `pitroom help events`. */
export function describeWatchLines(): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [name, shape] of Object.entries(WATCH_LINES)) {
    out[name] = Object.fromEntries(
      Object.entries(shape as Shape).map((
        [k, f],
      ) => [k, f.optional ? `${f.describe}?` : f.describe]),
    );
  }
  return out;
}
