/**
 * Stalled runs (pure): a running run whose worker has sent no event for its stall time (the
 * config's `stallAfter`, frozen into the record; 10 minutes by default) shows as
 * `stalled (no event for 12m)`. Derived when a record is read, never written: the worker is not
 * stopped for it. Its last sign of life is its latest event (`progress.at`) or the start of its
 * attempt; a run with no worker going (queued, between attempts, verifying, ended) never stalls.
 */
import type { RunRecord } from "../../store/record.ts";

/** The stall time when the config sets none. */
export const DEFAULT_STALL_AFTER = { text: "10m", ms: 10 * 60_000 } as const;

/** A stalled run: since when its worker is silent, for how long, and how that is said. */
export interface Stall {
  /** The worker's latest event (or the start of its attempt), ms since the epoch. */
  since: number;
  /** How long it has been silent, in ms. */
  quietMs: number;
  /** `stalled (no event for 12m)`. */
  text: string;
}

/** The run's stall time, in ms. */
export function stallAfterOf(record: RunRecord): number {
  return record.settings?.stallAfterMs ?? DEFAULT_STALL_AFTER.ms;
}

/**
 * The last sign of life of the run's worker: its latest event or the start of its attempt,
 * whichever is later; null when no worker is going.
 */
export function workerSince(record: RunRecord): number | null {
  if (record.state !== "running") return null;
  const attempt = record.attempts.at(-1);
  if (attempt === undefined || attempt.endedAt !== undefined) return null;
  return Math.max(attempt.startedAt, record.progress.at ?? 0);
}

/**
 * The run's stall at `now`, or null. `seen` is the time of the latest event of the run a
 * follower has read already (the record's own is written a moment after the event).
 */
export function stallOf(record: RunRecord, now: number, seen = 0): Stall | null {
  const since = workerSince(record);
  if (since === null) return null;
  const last = Math.max(since, seen);
  const quietMs = now - last;
  if (quietMs < stallAfterOf(record)) return null;
  return { since: last, quietMs, text: stallText(quietMs) };
}

/** `stalled (no event for 12m)`: whole minutes (seconds below a minute, hours above an hour). */
export function stallText(quietMs: number): string {
  return `stalled (no event for ${quietFor(quietMs)})`;
}

function quietFor(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}
