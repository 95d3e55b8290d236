import assert from "node:assert/strict";
import { join } from "node:path";
import { receiptFor } from "../../src/engine/run/receipt.ts";
import { isFreeModel, listPrice, MODEL_PRICES, tableKey } from "../../src/receipts/prices.ts";
import { resolvePricing } from "../../src/receipts/pricing.ts";
import { costOf, makeReceipt, returnedTokensOf } from "../../src/receipts/receipt.ts";
import { resolveSettings } from "../../src/engine/core/settings.ts";
import type { Config } from "../../src/store/config.ts";
import { emptyProgress, RECORD_SCHEMA, type RunRecord } from "../../src/store/record.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

const NO_ENV = { get: () => undefined };

function pricing(config: Config = {}, env: Record<string, string> = {}, warnings: string[] = []) {
  return resolvePricing(config, { get: (n) => env[n] }, warnings);
}

function run(
  model: string | undefined,
  tokens: Partial<RunRecord["progress"]["tokens"]>,
  extra: Partial<RunRecord> = {},
  cost?: number,
): RunRecord {
  return {
    schemaVersion: RECORD_SCHEMA,
    id: "20261130-101500-3f2a",
    state: "done",
    mode: "read",
    task: "Where is the retry policy?",
    cwd: "/repo",
    chain: [{ worker: "codex", ...(model ? { model } : {}) }],
    web: false,
    timeoutMs: 60_000,
    createdAt: 0,
    attempts: [{ worker: "codex", ...(model ? { model } : {}), startedAt: 0, outcome: "ok" }],
    progress: {
      ...emptyProgress(),
      tokens: { input: 0, output: 0, cached: 0, reasoning: 0, ...tokens },
      ...(cost === undefined ? {} : { cost }),
    },
    outcome: "ok",
    exit: 0,
    answer: "x".repeat(400),
    ...extra,
  };
}

const MILLION = { input: 1_000_000, output: 1_000_000, cached: 1_000_000, reasoning: 0 };

Deno.test("costOf() prices input, cached input and output (reasoning as output) per million", () => {
  const price = { input: 2, output: 10, cached: 0.1 };
  assert.equal(costOf(MILLION, price), 12.1);
  assert.equal(costOf({ input: 0, output: 500_000, cached: 0, reasoning: 500_000 }, price), 10);
});

Deno.test("makeReceipt() prices a model of the table at its list price against sonnet", () => {
  const receipt = makeReceipt(run("gpt-5.4-mini", MILLION), { pricing: pricing() });
  assert.equal(receipt.workerCostSource, "price-table");
  assert.equal(receipt.workerCost, 0.75 + 4.5 + 0.075);
  assert.equal(receipt.primary, "sonnet");
  assert.equal(receipt.primaryCost, 2 + 10 + 0.1);
  assert.equal(receipt.saved, Math.round((12.1 - 5.325) * 1e6) / 1e6);
  assert.equal(receipt.model, "gpt-5.4-mini");
  assert.equal(receipt.pricesTaken, "2026-11-30");
});

Deno.test("makeReceipt() takes the cost the CLI reported over any price", () => {
  const receipt = makeReceipt(run("gpt-5.5", MILLION, {}, 0.42), { pricing: pricing() });
  assert.deepEqual([receipt.workerCost, receipt.workerCostSource], [0.42, "reported"]);
  assert.equal(receipt.saved, 12.1 - 0.42);
});

Deno.test("makeReceipt() counts opencode's free models as costing nothing", () => {
  for (const model of ["opencode/space-bunny-free", "opencode/big-pickle", "openrouter/x:free"]) {
    const receipt = makeReceipt(run(model, MILLION, {}, 0), { pricing: pricing() });
    assert.deepEqual([receipt.workerCost, receipt.workerCostSource], [0, "free"], model);
    assert.equal(receipt.saved, 12.1);
  }
  assert.equal(isFreeModel("opencode/gpt-5.5"), false);
});

Deno.test("makeReceipt() uses workerPrices from the config over the table, and costs as an alias", () => {
  const own = pricing({ workerPrices: { "gpt-5.5": { input: 1, output: 2, cached: 0 } } });
  const receipt = makeReceipt(run("openai/gpt-5.5", MILLION), { pricing: own });
  assert.deepEqual([receipt.workerCost, receipt.workerCostSource], [3, "config"]);
  const old = pricing({ costs: { "my-model": { input: 10, output: 20 } } });
  const viaCosts = makeReceipt(run("my-model", MILLION), { pricing: old });
  // A price without `cached` charges cached input at a tenth of input.
  assert.deepEqual([viaCosts.workerCost, viaCosts.workerCostSource], [31, "config"]);
});

Deno.test("makeReceipt() says unknown (cost 0) for a model without a price, and for no model", () => {
  const unknown = makeReceipt(run("mystery-model", MILLION), { pricing: pricing() });
  assert.deepEqual([unknown.workerCost, unknown.workerCostSource], [0, "unknown"]);
  const none = makeReceipt(run(undefined, MILLION), { pricing: pricing() });
  assert.equal(none.workerCostSource, "unknown");
  assert.equal(none.model, undefined);
  const byDefault = makeReceipt(run(undefined, MILLION), {
    pricing: pricing(),
    defaultModels: { codex: "gpt-5.4" },
  });
  assert.deepEqual([byDefault.model, byDefault.workerCostSource], ["gpt-5.4", "price-table"]);
});

Deno.test("makeReceipt() measures against the primary preset or a custom price", () => {
  const opus = makeReceipt(run("gpt-5.4-mini", MILLION), { pricing: pricing({ primary: "opus" }) });
  assert.deepEqual([opus.primary, opus.primaryCost], ["opus", 4 + 20 + 0.2]);
  const gpt = makeReceipt(run("gpt-5.4-mini", MILLION), { pricing: pricing({ primary: "gpt-5" }) });
  assert.equal(gpt.primaryCost, 1.25 + 10 + 0.125);
  const custom = makeReceipt(run("gpt-5.4-mini", MILLION), {
    pricing: pricing({ primary: "custom", price: { input: 3, output: 15, cached: 0.3 } }),
  });
  assert.deepEqual([custom.primary, custom.primaryCost], ["custom", 18.3]);
  const env = makeReceipt(run("gpt-5.4-mini", MILLION), {
    pricing: pricing({ primary: "opus" }, { PITROOM_PRIMARY: "haiku" }),
  });
  assert.deepEqual([env.primary, env.primaryCost], ["haiku", 0.1 + 0.5 + 0.01]);
});

Deno.test("resolvePricing() warns about a bad primary or price and falls back to sonnet", () => {
  const warnings: string[] = [];
  const p = pricing(
    { primary: "gpt-9", workerPrices: { m: { input: -1, per: 2 } } } as Config,
    {},
    warnings,
  );
  assert.deepEqual([p.primary, p.primarySource], ["sonnet", "default"]);
  assert.deepEqual(p.workerPrices, { m: {} });
  assert.equal(warnings.length, 3);
  assert.match(warnings[0]!, /workerPrices\.m\.input" should be USD per million tokens/);
  assert.match(warnings[2]!, /"primary" "gpt-9" is not a known model/);
  const custom: string[] = [];
  assert.equal(pricing({ primary: "custom" }, {}, custom).primary, "sonnet");
  assert.match(custom[0]!, /"custom" but "price" has no \{input, output\}/);
});

Deno.test("resolveSettings() shows workerPrices, primary and price with their sources", () => {
  const { settings } = resolveSettings({
    config: { primary: "custom", price: { input: 3, output: 15 }, costs: { a: { input: 1 } } },
    env: NO_ENV,
    configPath: "/cfg",
    stateDir: "/state",
  });
  assert.deepEqual(settings.primary, { value: "custom", source: "file" });
  assert.deepEqual(settings.price, { value: { input: 3, output: 15 }, source: "file" });
  assert.deepEqual(settings.workerPrices, { value: { a: { input: 1 } }, source: "file" });
  const plain = resolveSettings({ config: {}, env: NO_ENV, configPath: "", stateDir: "" });
  assert.deepEqual(plain.settings.primary, { value: "sonnet", source: "default" });
});

Deno.test("returnedTokensOf() counts the answer, the problem and the changed files at 4 chars a token", () => {
  const base = returnedTokensOf(run("m", {}, { answer: "" }));
  assert.equal(base, 90);
  assert.equal(returnedTokensOf(run("m", {}, { answer: "a".repeat(4000) })), 90 + 1000);
  const failed = run("m", {}, { answer: "", state: "problem", message: "m".repeat(40) });
  assert.equal(returnedTokensOf(failed), 100);
  const files = run("m", {}, {
    answer: "",
    changes: {
      before: { tree: "a", head: null, bareDirs: [], ignored: [] },
      after: "b",
      files: [{ path: "src/a.ts", status: "added", added: 1, removed: 0, binary: false }],
    },
  });
  assert.equal(returnedTokensOf(files), 96);
});

Deno.test("makeReceipt() gives the compression as burned tokens per returned token", () => {
  const receipt = makeReceipt(
    run("m", { input: 100_000, cached: 800_000, output: 9_000, reasoning: 1_000 }, { answer: "" }),
    { pricing: pricing() },
  );
  assert.equal(receipt.returnedTokens, 90);
  assert.equal(receipt.compression, Math.round(910_000 / 90 * 10) / 10);
  const nothing = makeReceipt(run("m", {}), { pricing: pricing() });
  assert.equal(nothing.compression, null);
});

Deno.test("the price table knows the workers' common models by the ids their CLIs write", () => {
  assert.equal(tableKey("anthropic/claude-sonnet-5-5"), "claude-sonnet-5-5");
  assert.equal(tableKey("claude-haiku-4-5-20251001"), "claude-haiku-4-5");
  assert.equal(tableKey("claude-opus-5-5[1m]"), "claude-opus-5-5");
  assert.equal(tableKey("sonnet"), "claude-sonnet-5-5");
  for (const id of ["opus", "gpt-5.5", "gpt-5.4-mini", "gemini-3.5-flash", "gemini-2.5-pro"]) {
    assert.ok(listPrice(id), id);
  }
  assert.equal(listPrice("constructor"), undefined);
  for (const [id, price] of Object.entries(MODEL_PRICES)) {
    assert.ok(price.output >= price.input && price.input >= price.cached, id);
  }
});

Deno.test("receiptFor() reads workerPrices and primary from the config file of the Sys", async () => {
  await using dir = await tempDir();
  const configPath = join(dir.path, "config.json");
  await Deno.writeTextFile(
    configPath,
    JSON.stringify({ primary: "opus", workerPrices: { "gpt-5.5": { input: 0, output: 0 } } }),
  );
  const sys = testSys({ stateDir: dir.path, env: { PITROOM_CONFIG: configPath } });
  const receipt = await receiptFor(sys, run("gpt-5.5", MILLION));
  assert.equal(receipt?.primary, "opus");
  assert.deepEqual([receipt?.workerCost, receipt?.workerCostSource], [0, "config"]);
  assert.equal(receipt?.saved, 24.2);
});
