import assert from "node:assert/strict";
import { renderReport } from "../../src/cli/report.ts";
import { receiptLines } from "../../src/receipts/lines.ts";
import type { Receipt, RunRecord } from "../../src/store/record.ts";

function receipt(overrides: Partial<Receipt> = {}): Receipt {
  return {
    tokens: { input: 120_331, output: 3_402, cached: 2_100_000, reasoning: 1_200 },
    returnedTokens: 107,
    compression: 20_793.8,
    workerCost: 0,
    workerCostSource: "free",
    primary: "sonnet",
    primaryCost: 0.496682,
    saved: 0.496682,
    model: "opencode/space-bunny-free",
    pricesTaken: "2026-11-30",
    ...overrides,
  };
}

function record(withReceipt: Receipt | undefined): RunRecord {
  return {
    schemaVersion: 1,
    id: "20261130-101500-3f2a",
    state: "done",
    mode: "read",
    task: "Where is the retry policy?",
    cwd: "/repo",
    chain: [{ worker: "opencode", model: "opencode/space-bunny-free" }],
    web: false,
    timeoutMs: 1_800_000,
    createdAt: 0,
    startedAt: 0,
    endedAt: 72_000,
    attempts: [{
      worker: "opencode",
      model: "opencode/space-bunny-free",
      startedAt: 0,
      endedAt: 72_000,
      outcome: "ok",
    }],
    progress: {
      steps: 12,
      tools: 30,
      tokens: { input: 120_331, output: 3_402, cached: 2_100_000, reasoning: 1_200 },
      cost: 0.5,
    },
    outcome: "ok",
    exit: 0,
    answer: "In src/retry.ts:42.",
    ...(withReceipt ? { receipt: withReceipt } : {}),
  };
}

Deno.test("renderReport() prints the receipt after the tokens, worded as an estimate", () => {
  assert.equal(
    renderReport(record(receipt()), 80_000),
    [
      "run 20261130-101500-3f2a · done · read · 1m12s",
      "worker   opencode (opencode/space-bunny-free)",
      "work     12 steps, 30 tool calls",
      "tokens   120,331 in (+2,100,000 cached) / 3,402 out / 1,200 reasoning",
      "receipt  2,224,933 tokens burned · ~107 returned to you · 20,794x compression",
      "cost     worker $0 (free model) · Claude Sonnet ~$0.4967 for the same tokens",
      "saved    ~$0.4967 vs Claude Sonnet (estimates: list prices of 2026-11-30, not a bill)",
      "",
      "answer:",
      "  In src/retry.ts:42.",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport() of a run without a receipt keeps the old tokens line with the cost", () => {
  const text = renderReport(record(undefined), 80_000);
  assert.match(
    text,
    /\ntokens {3}120,331 in \(\+2,100,000 cached\) \/ 3,402 out \/ 1,200 reasoning · \$0\.5000\n/,
  );
  assert.doesNotMatch(text, /receipt|saved/);
});

Deno.test("receiptLines() names where the worker's cost comes from", () => {
  const cost = (r: Partial<Receipt>) => receiptLines(receipt(r))[1]!;
  assert.match(
    cost({ workerCost: 0.0123, workerCostSource: "reported" }),
    /worker \$0\.0123 \(reported by the worker\)/,
  );
  assert.match(
    cost({ workerCost: 1.5, workerCostSource: "price-table", model: "gpt-5.5" }),
    /worker ~\$1\.50 \(list price of gpt-5\.5\)/,
  );
  assert.match(
    cost({ workerCost: 2, workerCostSource: "config", model: "m" }),
    /~\$2\.00 \(your workerPrices for m\)/,
  );
  assert.match(
    cost({ workerCostSource: "unknown", model: "m" }),
    /unknown \(no price for m: add it to workerPrices\)/,
  );
  assert.match(
    cost({ primary: "custom", primaryCost: 3 }),
    /your primary ~\$3\.00 for the same tokens/,
  );
});

Deno.test("receiptLines() says when nothing was saved and when the saving is an upper bound", () => {
  assert.match(
    receiptLines(receipt({ workerCost: 1.79, workerCostSource: "price-table", saved: -1.29 }))[2]!,
    /^saved {4}none: the worker cost ~\$1\.29 more than Claude Sonnet \(estimates/,
  );
  assert.match(
    receiptLines(receipt({ workerCostSource: "unknown" }))[2]!,
    /^saved {4}at most ~\$0\.4967 vs Claude Sonnet \(the worker's cost is unknown\)/,
  );
  assert.match(receiptLines(receipt({ compression: null }))[0]!, /returned to you$/);
});
