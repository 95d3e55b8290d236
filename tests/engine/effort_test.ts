import assert from "node:assert/strict";
import { checkEffort } from "../../src/engine/request/effort.ts";
import { UsageError } from "../../src/sys/errors.ts";
import type { ModelInfo } from "../../src/workers/types.ts";

const MODELS: ModelInfo[] = [
  {
    id: "gpt-5.5",
    efforts: ["low", "medium", "high", "xhigh"],
    defaultEffort: "medium",
    source: "cli",
  },
  { id: "plain", efforts: [], source: "config" },
];

Deno.test("checkEffort() returns a level the model accepts, normalised", () => {
  assert.equal(checkEffort(MODELS, "gpt-5.5", "high"), "high");
  assert.equal(checkEffort(MODELS, "gpt-5.5", " XHigh "), "xhigh");
});

Deno.test("checkEffort() refuses a model without effort levels, naming the worker", () => {
  assert.throws(
    () => checkEffort(MODELS, "plain", "low", { worker: "opencode" }),
    (error: unknown) =>
      error instanceof UsageError && error.exit === 2 &&
      error.message === 'Model "plain" of opencode has no effort levels',
  );
});

Deno.test("checkEffort() refuses a level the model does not accept and lists the accepted ones", () => {
  assert.throws(
    () => checkEffort(MODELS, "gpt-5.5", "max", { worker: "codex" }),
    (error: unknown) =>
      error instanceof UsageError &&
      error.message ===
        'Model "gpt-5.5" of codex does not accept effort "max": it accepts low, medium, high, xhigh' &&
      error.hint === "use `effort: medium`",
  );
});

Deno.test("checkEffort() checks the default model against the levels any model accepts", () => {
  assert.equal(checkEffort(MODELS, undefined, "low"), "low");
  assert.throws(
    () => checkEffort(MODELS, undefined, "turbo", { worker: "codex" }),
    /The default model of codex does not accept effort "turbo": its models accept low, medium, high, xhigh/,
  );
});

Deno.test("checkEffort() refuses a worker whose models have no levels at all", () => {
  assert.throws(
    () => checkEffort([{ id: "a", efforts: [], source: "cli" }], "unlisted", "low"),
    /Model "unlisted" has no effort levels/,
  );
});

Deno.test("checkEffort() lets a level through when the worker lists no models", () => {
  assert.equal(checkEffort([], "fake/ok", "high"), "high");
});

Deno.test("checkEffort() refuses an empty level", () => {
  assert.throws(() => checkEffort(MODELS, "gpt-5.5", "  "), /Effort level is empty/);
});
