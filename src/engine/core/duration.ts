/**
 * Durations as users type them: `90s`, `30m`, `1h`, `2h30m`, or plain seconds.
 */
import { durationMs } from "./settings.ts";
import { UsageError } from "../../sys/errors.ts";

/** Parses a duration into milliseconds; a usage error names the flag when it is not one. */
export function parseDuration(text: string, flag = "duration"): number {
  const ms = durationMs(text);
  if (ms === null) {
    throw new UsageError(`Invalid ${flag} "${text}": expected a time like 90s, 30m or 1h`);
  }
  return ms;
}

/** Formats milliseconds for people: `850ms`, `42s`, `3m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}
