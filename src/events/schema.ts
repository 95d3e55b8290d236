/**
 * A tiny schema language for the event registry: one definition gives the TypeScript type, the
 * runtime validator for events files, SSE and MCP, and the field list for the `--json` docs.
 */

/** A field schema: validates one value and describes itself. */
export interface Field<T, O extends boolean = boolean> {
  readonly describe: string;
  readonly optional: O;
  check(value: unknown): value is T;
  /** Phantom marker carrying the field's TypeScript type. */
  readonly _type?: T;
}

function field<T>(describe: string, check: (v: unknown) => v is T): Field<T, false> {
  return { describe, optional: false, check };
}

/** A string field. */
export const str: Field<string, false> = field("string", (v): v is string => typeof v === "string");
/** A finite number field. */
export const num: Field<number, false> = field(
  "number",
  (v): v is number => typeof v === "number" && Number.isFinite(v),
);
/** A count or an amount: a finite number of at least 0 (tokens, cost, a wait). */
export const count: Field<number, false> = field(
  "number >= 0",
  (v): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0,
);
/** A boolean field. */
export const bool: Field<boolean, false> = field(
  "boolean",
  (v): v is boolean => typeof v === "boolean",
);

/** One of a closed set of string literals. */
export function oneOf<const T extends readonly string[]>(values: T): Field<T[number], false> {
  return field(
    values.map((v) => JSON.stringify(v)).join(" | "),
    (v): v is T[number] => typeof v === "string" && (values as readonly string[]).includes(v),
  );
}

/** An array whose items match `item`. */
export function arr<T>(item: Field<T>): Field<T[], false> {
  return field(
    `${item.describe}[]`,
    (v): v is T[] => Array.isArray(v) && v.every((x) => item.check(x)),
  );
}

/** An object with the given fields (extra keys are allowed and ignored). */
export function obj<S extends Shape>(shape: S): Field<Infer<S>, false> {
  return field(
    `{ ${
      Object.entries(shape).map(([k, f]) => `${k}${f.optional ? "?" : ""}: ${f.describe}`).join(
        ", ",
      )
    } }`,
    (v): v is Infer<S> => checkShape(shape, v),
  );
}

/** Marks a field as optional (it may be absent; `null` is not accepted). */
export function opt<T>(inner: Field<T>): Field<T | undefined, true> {
  return {
    describe: inner.describe,
    optional: true,
    check: (v): v is T | undefined => v === undefined || inner.check(v),
  };
}

/** A record of fields. */
export type Shape = Record<string, Field<unknown, boolean>>;

type OptionalKeys<S extends Shape> = {
  [K in keyof S]: S[K]["optional"] extends true ? K : never;
}[keyof S];
type FieldType<F> = F extends Field<infer T> ? T : never;

/** The TypeScript type a shape describes. */
export type Infer<S extends Shape> =
  & { [K in Exclude<keyof S, OptionalKeys<S>>]: FieldType<S[K]> }
  & { [K in OptionalKeys<S>]?: Exclude<FieldType<S[K]>, undefined> };

/** True when `value` is an object that satisfies every field of `shape`. */
export function checkShape(shape: Shape, value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  for (const [key, f] of Object.entries(shape)) {
    if (!f.check(record[key])) return false;
  }
  return true;
}
