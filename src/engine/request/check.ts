/**
 * Checks an untrusted run request against its fields (fields.ts) without zod: what the door does
 * with every request it takes. Unknown fields are dropped (as the schema's object does); a bad
 * one is a usage error naming the first problem, `Invalid run request: FIELD: what`.
 */
import { UsageError } from "../../sys/errors.ts";
import type { RunRequest } from "./request.ts";
import {
  CAP_NAMES,
  type FieldKind,
  MAX_TIMEOUT_MS,
  REQUEST_FIELDS,
  REQUEST_MODES,
} from "./fields.ts";

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

/** Why `value` is not a `kind`, with the path of the part at fault; null when it is one. */
function problem(kind: FieldKind, value: unknown): { path: string[]; message: string } | null {
  const expected = (what: string, path: string[] = []) => ({
    path,
    message: `expected ${what}, received ${kindOf(value)}`,
  });
  const positive = (n: unknown, path: string[]) => {
    if (typeof n !== "number" || !Number.isFinite(n)) {
      return { path, message: `expected number, received ${kindOf(n)}` };
    }
    return n > 0 ? null : { path, message: "too small: expected number to be >0" };
  };
  switch (kind) {
    case "string":
      return typeof value === "string" ? null : expected("string");
    case "boolean":
      return typeof value === "boolean" ? null : expected("boolean");
    case "strings": {
      if (!Array.isArray(value)) return expected("array");
      const at = value.findIndex((item) => typeof item !== "string");
      return at < 0 ? null : {
        path: [String(at)],
        message: `expected string, received ${kindOf(value[at])}`,
      };
    }
    case "mode":
      return (REQUEST_MODES as readonly unknown[]).includes(value) ? null : {
        path: [],
        message: `expected one of ${REQUEST_MODES.map((m) => `"${m}"`).join("|")}`,
      };
    case "caps": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return expected("object");
      }
      for (const name of CAP_NAMES) {
        const cap = (value as Record<string, unknown>)[name];
        if (cap === undefined) continue;
        const wrong = positive(cap, [name]);
        if (wrong !== null) return wrong;
      }
      return null;
    }
    case "duration": {
      const wrong = positive(value, []);
      if (wrong !== null) return wrong;
      return (value as number) <= MAX_TIMEOUT_MS
        ? null
        : { path: [], message: `too big: expected number to be <=${MAX_TIMEOUT_MS}` };
    }
    case "count": {
      if (typeof value === "number" && Number.isFinite(value) && !Number.isInteger(value)) {
        return { path: [], message: "expected int, received number" };
      }
      return positive(value, []);
    }
  }
}

/** Checks an untrusted request; a bad one is a usage error naming the first problem. */
export function checkRequest(value: unknown): RunRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(
      `Invalid run request: request: expected object, received ${kindOf(value)}`,
    );
  }
  const given = value as Record<string, unknown>;
  const checked: Record<string, unknown> = {};
  for (const [name, [kind]] of Object.entries(REQUEST_FIELDS)) {
    if (!(name in given)) continue;
    const field = given[name];
    if (field === undefined) {
      // Given as undefined: kept as such, as the schema's optional fields keep it.
      checked[name] = undefined;
      continue;
    }
    const wrong = problem(kind, field);
    if (wrong !== null) {
      throw new UsageError(
        `Invalid run request: ${[name, ...wrong.path].join(".")}: ${wrong.message}`,
      );
    }
    if (kind === "caps") {
      const caps: Record<string, unknown> = {};
      for (const cap of CAP_NAMES) {
        const v = (field as Record<string, unknown>)[cap];
        if (v !== undefined) caps[cap] = v;
      }
      checked[name] = caps;
    } else {
      checked[name] = Array.isArray(field) ? [...field] : field;
    }
  }
  return checked as RunRequest;
}
