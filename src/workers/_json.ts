/**
 * Small readers shared by the backends' parsers: a CLI's JSON line is untrusted input, so every
 * field is read with a check and a line that is not a JSON object is reported as such.
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

/** Parses one line as a JSON object; null when it is not JSON or not an object. */
export function parseJsonObject(line: string): Json | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
  return isObject(value) ? value : null;
}
