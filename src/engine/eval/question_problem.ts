/**
 * A questions file's first problem in plain words: which question (its number and id) and which
 * field, then what is wrong with it (`question 2 ("todos"): "kind" is "guess"; it must be one
 * of definition, count, files`), from the schema's issue and the file's own values.
 */
import { QUESTION_KINDS } from "./kinds.ts";

/** A schema issue, as much of it as is read here. */
export interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  [key: string]: unknown;
}

/** The value at `path` in `raw` (undefined where there is none). */
function at(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    if (!Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A JSON value's kind, as a person says it. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the text ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "number") return `the number ${value}`;
  return String(value);
}

const TYPES: Readonly<Record<string, string>> = {
  string: "a text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
};

/** Where the issue is: the question (number and id) and the field, in words. */
function whereOf(raw: unknown, path: readonly PropertyKey[]): string {
  if (path[0] === "questions" && typeof path[1] === "number") {
    const id = at(raw, ["questions", path[1], "id"]);
    const question = `question ${path[1] + 1}${typeof id === "string" ? ` ("${id}")` : ""}`;
    const field = path.slice(2).map(String).join(".");
    return field === "" ? question : `${question}: the field "${field}"`;
  }
  return path.length === 0 ? "the file" : `the field "${path.map(String).join(".")}"`;
}

/** What is wrong, in words, without the place. */
function whatOf(raw: unknown, issue: Issue): string {
  const value = at(raw, issue.path);
  switch (issue.code) {
    case "invalid_union": {
      if (issue.note === "No matching discriminator") {
        const kinds = QUESTION_KINDS.join(", ");
        return value === undefined
          ? `is missing; it must be one of ${kinds}`
          : `is ${kindOf(value)}; it must be one of ${kinds}`;
      }
      const types = ((issue.errors ?? []) as Issue[][]).flatMap((b) =>
        b.flatMap((i) =>
          i.expected === undefined ? [] : [TYPES[String(i.expected)] ?? String(i.expected)]
        )
      );
      return `is ${kindOf(value)}; it must be ${[...new Set(types)].join(" or ")}`;
    }
    case "invalid_type":
      return value === undefined
        ? `is missing (${TYPES[String(issue.expected)] ?? String(issue.expected)})`
        : `is ${kindOf(value)}; it must be ${
          TYPES[String(issue.expected)] ?? String(issue.expected)
        }`;
    case "unrecognized_keys":
      return `has a field it does not know: ${
        ((issue.keys ?? []) as string[]).map((k) => `"${k}"`).join(", ")
      }`;
    case "too_small":
      if (issue.origin === "array") return `is empty; it needs at least ${issue.minimum}`;
      if (issue.origin === "string") return "is empty";
      return `is ${kindOf(value)}; it must be ${issue.minimum} or more`;
    case "invalid_format":
      return `is ${kindOf(value)}; it must be ${issue.message}`;
    case "invalid_value":
      return `is ${kindOf(value)}; it must be ${
        ((issue.values ?? []) as unknown[]).map((v) => JSON.stringify(v)).join(" or ")
      }`;
    default:
      return issue.message;
  }
}

/**
 * A union's issue (a truth: a literal or a grep) said by the branch whose type fits, with that
 * branch's own issue, where there is one; else the union's issue as it is.
 */
function deepest(issue: Issue): Issue {
  if (issue.code !== "invalid_union" || issue.note !== undefined) return issue;
  const branches = (issue.errors ?? []) as Issue[][];
  const fits = branches.find((b) =>
    !b.some((i) => i.code === "invalid_type" && i.path.length === 0)
  );
  const inner = fits?.[0];
  return inner === undefined ? issue : deepest({ ...inner, path: [...issue.path, ...inner.path] });
}

/** The first problem of a questions file, in words: where, then what. */
export function questionProblem(raw: unknown, issue: Issue): string {
  const first = deepest(issue);
  return `${whereOf(raw, first.path)} ${whatOf(raw, first)}`;
}
