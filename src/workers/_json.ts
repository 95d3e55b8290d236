/**
 * Small readers shared by the backends' parsers: a CLI's JSON line is untrusted input, so every
 * field is read with a check and a line that is not a JSON object is reported as such. Counts are
 * finite and never negative, a name is looked up in a kind table by its own keys only (a tool
 * named `constructor` is not `Object.prototype.constructor`), and what an `unknown` event keeps
 * of a line is bounded.
 */

/** A JSON object. */
export type Json = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value when it is a string. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The value when it is a finite number, else 0. */
export function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** A token count: the value when it is a finite number of at least 0, else 0. */
export function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** An amount of money or time: the value when it is finite and at least 0, else undefined. */
export function amount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** An HTTP status: an integer from 100 to 599, else undefined. */
export function httpStatus(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 100 && value <= 599
    ? value
    : undefined;
}

/** The entry of `table` for `name`, looking at the table's own keys only. */
export function lookup<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** Parses one line as a JSON object; null when it is not JSON, not an object, or too deep. */
export function parseJsonObject(line: string): Json | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    // A RangeError is a nesting deeper than the parser's stack: not a line we can read.
    if (error instanceof SyntaxError || error instanceof RangeError) return null;
    throw error;
  }
  return isObject(value) ? value : null;
}

/** `JSON.stringify` of a parsed value, or "" when it is too deep to write back. */
export function stringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch (error) {
    if (error instanceof RangeError) return "";
    throw error;
  }
}

/** How much of a line an `unknown` event keeps. */
export const UNKNOWN_RAW_CHARS = 2000;

/** The part of an unrecognised line an `unknown` event keeps (the start, marked when cut). */
export function rawOf(line: string): string {
  return line.length <= UNKNOWN_RAW_CHARS ? line : `${line.slice(0, UNKNOWN_RAW_CHARS - 1)}…`;
}
