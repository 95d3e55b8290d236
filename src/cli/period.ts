/**
 * `--since 30d|all` as the history commands take it: a time back from now (`12h`, `7d`, `30d`:
 * any duration `-t` takes) or `all`; anything else is one usage line listing those forms.
 */
import { durationMs } from "../sys/duration.ts";
import { UsageError } from "../sys/errors.ts";

/** The start of the period (ms), or null for `all`. */
export function sinceOf(value: string, now: number): number | null {
  if (value.toLowerCase() === "all") return null;
  const ms = durationMs(value);
  if (ms === null) {
    throw new UsageError(
      `Invalid --since "${value}": expected a time back from now like 12h, 7d or 30d, or all`,
      { hint: "say --since 7d for the last week, or --since all for every run kept" },
    );
  }
  return now - ms;
}

/** Words for a period: `last 30d`, `all time`. */
export function periodWords(value: string): string {
  return value.toLowerCase() === "all" ? "all time" : `last ${value}`;
}
