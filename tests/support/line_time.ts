/**
 * `LineTime`s for parser tests: a line read at `time`, certainly written after `since` (by default
 * `time`: nothing known), by a process started at `start` (by default `since`).
 */
import type { LineTime } from "../../src/workers/types.ts";

/** A line read at `time`, written after `since`, of a process started at `start`. */
export function readAt(time: number, since = time, start = since): LineTime {
  return { time, since, start };
}
