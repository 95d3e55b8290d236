/**
 * How long a rate-limited or out-of-quota target cools down (pure): the time the provider named,
 * clamped to 1 minute .. 24 hours; a per-day quota without a time cools until the next local
 * midnight; anything else 20 minutes.
 */
import type { Outcome } from "../../workers/types.ts";

const MINUTE = 60_000;
const MIN_MS = MINUTE;
const MAX_MS = 24 * 60 * MINUTE;
const DEFAULT_MS = 20 * MINUTE;

/** The next local midnight after `now`. */
export function nextLocalMidnight(now: number): number {
  const d = new Date(now);
  d.setHours(24, 0, 0, 0);
  return d.getTime();
}

/** When a target that ended with `outcome` at `now` may be tried again. */
export function cooldownUntil(
  outcome: Pick<Outcome, "retryAfterMs" | "daily">,
  now: number,
): number {
  if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > 0) {
    return now + Math.min(MAX_MS, Math.max(MIN_MS, outcome.retryAfterMs));
  }
  if (outcome.daily) return nextLocalMidnight(now);
  return now + DEFAULT_MS;
}

/** `14:05` (local), or `tomorrow 09:30` when not today. */
export function formatUntil(until: number, now: number): string {
  const d = new Date(until);
  const hm = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  return new Date(now).toDateString() === d.toDateString()
    ? hm
    : `${
      d.toDateString() === new Date(now + 86_400_000).toDateString()
        ? "tomorrow"
        : d.toISOString().slice(0, 10)
    } ${hm}`;
}
