/**
 * The door checks run requests without zod (request/check.ts) over the same declared fields the
 * zod schema MCP publishes is built from (request/fields.ts): both must accept the same requests
 * (with the same result: unknown fields dropped) and refuse the same ones at the same field.
 */
import assert from "node:assert/strict";
import { checkRequest } from "../../src/engine/request/check.ts";
import { REQUEST_FIELDS } from "../../src/engine/request/fields.ts";
import { schemas } from "../../src/engine/mod.ts";

const { runRequestSchema } = await schemas();

const GOOD: unknown[] = [
  {},
  { task: "x" },
  { task: "x", extra: 1, nested: { a: 1 } },
  { tasks: ["a", "b"], mode: "isolate", files: ["f"], link: [] },
  { task: "x", mode: "read", worker: "codex:m,claude", model: "m", tier: "cheap", effort: "low" },
  { task: "x", dir: "/tmp", verify: "true", group: "g", continue: "last", plan: "p.md", step: 2 },
  {
    task: "x",
    allowLinks: true,
    allowSecrets: false,
    web: true,
    noFallback: true,
    park: false,
    fresh: true,
    background: false,
    audit: true,
  },
  { task: "x", caps: {}, timeoutMs: 1 },
  { task: "x", caps: { maxTokens: 10, maxCost: 0.5, maxSteps: 3, other: 1 }, timeoutMs: 604800000 },
  { task: "x", model: undefined },
];

const BAD: unknown[] = [
  { task: 1 },
  { task: null },
  { tasks: "a" },
  { tasks: ["a", 2] },
  { mode: "fast" },
  { mode: 1 },
  { web: "yes" },
  { caps: 3 },
  { caps: [] },
  { caps: { maxTokens: 0 } },
  { caps: { maxCost: -1 } },
  { caps: { maxSteps: "3" } },
  { timeoutMs: 0 },
  { timeoutMs: 604800001 },
  { timeoutMs: Infinity },
  { timeoutMs: NaN },
  { timeoutMs: "30m" },
  { step: 1.5 },
  { step: 0 },
  { step: "2" },
  { files: [null] },
  { task: "x", audit: "no" },
];

function zodOf(value: unknown): { ok: unknown } | { path: string } {
  const parsed = runRequestSchema().safeParse(value);
  if (parsed.success) return { ok: parsed.data };
  return { path: parsed.error.issues[0]!.path.join(".") };
}

function checkOf(value: unknown): { ok: unknown } | { path: string } {
  try {
    return { ok: checkRequest(value) };
  } catch (error) {
    const m = /^Invalid run request: ([^:]*):/.exec((error as Error).message);
    assert.ok(m, (error as Error).message);
    return { path: m[1]! };
  }
}

Deno.test("the check and the zod schema accept the same requests, with the same result", () => {
  for (const value of GOOD) assert.deepEqual(checkOf(value), zodOf(value), JSON.stringify(value));
});

Deno.test("the check and the zod schema refuse the same requests, at the same field", () => {
  for (const value of BAD) {
    const zod = zodOf(value);
    assert.ok("path" in zod, `zod accepts ${JSON.stringify(value)}`);
    assert.deepEqual(checkOf(value), zod, String(JSON.stringify(value)));
  }
  for (const value of [null, "task", 3, ["task"]]) {
    assert.throws(() => checkRequest(value), /^UsageError: Invalid run request: request:/);
  }
});

Deno.test("the schema has a field for each declared field, and no other", () => {
  assert.deepEqual(
    Object.keys(runRequestSchema().shape).sort(),
    Object.keys(REQUEST_FIELDS).sort(),
  );
});
