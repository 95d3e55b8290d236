/**
 * Durations as users type them, for reading flags before any engine loads: `90s`, `30m`, `1h30m`,
 * `2d` or plain seconds, at most `MAX_DURATION`, and how a duration is said. A leaf (only
 * sys/errors.ts): the CLI's argv parser reads flags with it before any engine loads, and the
 * engine reads the config's durations with the same grammar.
 */
import { UsageError } from "./errors.ts";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The longest duration Pitroom takes anywhere (a timer cannot wait longer without overflowing). */
export const MAX_DURATION = { text: "7d", ms: 7 * 24 * 3600 * 1000 } as const;

/** Parses `90s`, `30m`, `1h30m` or plain seconds into ms; null when it is not a duration. */
export function durationMs(text: string): number | null {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const ms = Math.round(Number(trimmed) * 1000);
    return ms > 0 ? ms : null;
  }
  let total = 0;
  let matched = 0;
  for (const m of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy)) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    matched += m[0].length;
  }
  return matched === trimmed.length && matched > 0 && total > 0 ? Math.round(total) : null;
}

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
