/**
 * Durations as users type them: `90s`, `30m`, `1h`, `2h30m`, or plain seconds.
 */
import { UsageError } from "../sys/errors.ts";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses a duration into milliseconds. */
export function parseDuration(text: string, flag = "duration"): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  for (const m of trimmed.matchAll(re)) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    matched += m[0].length;
  }
  if (matched !== trimmed.length || matched === 0 || total <= 0) {
    throw new UsageError(`Invalid ${flag} "${text}": expected a time like 90s, 30m or 1h`);
  }
  return Math.round(total);
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
