/**
 * When a worker's tool call started and ended, for the parsers: attribution counts a change to a
 * file as the worker's only inside a call's window (engine/tree/attribute.ts), so a window's start
 * must never be later than the call's real start. A CLI that states its own times (the same wall
 * clock as Pitroom's) gives them; a stated time is believed only when it lies between the
 * process's start and the moment its line was read, else (another clock, a bad value) the start
 * falls back to the bound its line gives (`LineTime.since`). When a line was read is never a
 * start: a busy host reads a line late, after the call it announces has written its file.
 */
import type { LineTime } from "./types.ts";

/** An ISO 8601 time with a zone (a time without one would be read as local time). */
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)$/;

/** A time a CLI states (ms since the epoch, or an ISO 8601 string with a zone), as ms. */
export function statedTime(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string" || !ISO.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** True when a CLI can have stated `ms` for a line read `at`: between its start and the read. */
function believable(ms: number, at: LineTime): boolean {
  return ms >= at.start && ms <= at.time;
}

/**
 * When a call started: the time its CLI states for it (the line announcing it) when believable,
 * else the moment its announcing line was certainly written after.
 */
export function callStart(stated: number | undefined, at: LineTime): number {
  return stated !== undefined && believable(stated, at) ? stated : at.since;
}

/**
 * When a call ended, as its CLI states it on the line reporting it (read `at`): undefined when not
 * believable or before the call's `started` (the line's reading then bounds the end).
 */
export function callEnd(
  stated: number | undefined,
  at: LineTime,
  started?: number,
): number | undefined {
  if (stated === undefined || !believable(stated, at)) return undefined;
  return started !== undefined && stated < started ? undefined : stated;
}
