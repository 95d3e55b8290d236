/**
 * `--since 30d|all` as the history commands take it.
 */
import { parseDuration } from "../sys/duration.ts";

/** The start of the period (ms), or null for `all`. */
export function sinceOf(value: string, now: number): number | null {
  if (value === "all") return null;
  return now - parseDuration(value, "--since");
}

/** Words for a period: `last 30d`, `all time`. */
export function periodWords(value: string): string {
  return value === "all" ? "all time" : `last ${value}`;
}
