/**
 * The daily budget: today's spend comes from the history's receipts (and audits' costs); from
 * 80% a run is warned (on stderr through the warnings, and in its report's notes), from 100%
 * only free targets run and a chain without one is refused (exit 3).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  applyBudget,
  isFreeTarget,
  spentSince,
  startOfDay,
} from "../../src/engine/request/budget.ts";
import { createEngine } from "../../src/engine/mod.ts";
import { Exit, RefusedError } from "../../src/sys/errors.ts";
import { engineWorld } from "../support/engine_world.ts";
import { testSys } from "../support/sys.ts";
import { tempRepo } from "../support/temp.ts";

const PRICES = { "free-model": { input: 0, output: 0 }, "paid-model": { input: 3, output: 15 } };

Deno.test("isFreeTarget(): free model names and zero config prices are free; the default model is not", () => {
  assert.equal(isFreeTarget({ worker: "opencode", model: "opencode/big-pickle" }, {}), true);
  assert.equal(isFreeTarget({ worker: "opencode", model: "openrouter/x:free" }, {}), true);
  assert.equal(isFreeTarget({ worker: "opencode", model: "fake/free-model" }, PRICES), true);
  assert.equal(isFreeTarget({ worker: "codex", model: "fake/paid-model" }, PRICES), false);
  assert.equal(isFreeTarget({ worker: "codex", model: "gpt-5.5" }, {}), false);
  assert.equal(isFreeTarget({ worker: "claude" }, {}), false);
});

Deno.test("applyBudget(): nothing under 80%, a warning from 80%, only free targets from 100%, refused without one", () => {
  const paid = { worker: "codex" as const, model: "fake/paid-model" };
  const free = { worker: "opencode" as const, model: "fake/free-model" };
  const chain = [paid, free];
  assert.deepEqual(applyBudget(chain, { limit: 10, spent: 7.99 }, PRICES), { chain });
  const warned = applyBudget(chain, { limit: 10, spent: 8 }, PRICES);
  assert.deepEqual(warned.chain, chain);
  assert.equal(warned.warning, "Spent $8.00 of the daily budget $10.00 today (80%)");
  const spent = applyBudget(chain, { limit: 10, spent: 10 }, PRICES);
  assert.deepEqual(spent.chain, [free]);
  assert.match(spent.warning!, /only free workers run \(left out codex \(fake\/paid-model\)\)/);
  assert.throws(() => applyBudget([paid], { limit: 10, spent: 12 }, PRICES), (error) => {
    assert.ok(error instanceof RefusedError);
    assert.equal(error.exit, Exit.refused);
    assert.match(error.message, /Spent \$12\.00 of the daily budget \$10\.00 today: only free/);
    return true;
  });
});

Deno.test("the budget through real runs: today's receipts warn at 80% and leave only free workers at 100%", async () => {
  await using t = await engineWorld(
    await tempRepo({ "a.txt": "a\n" }),
    (
      spec,
    ) => [{ tokens: { input: 1, output: 1, cost: spec.model === "fake/paid-model" ? 0.45 : 0 } }, {
      answer: `answered by ${spec.model}`,
    }],
  );
  const configPath = join(t.sys.stateDir, "config.json");
  await Deno.writeTextFile(
    configPath,
    JSON.stringify({ budgetDaily: 1, workerPrices: PRICES }),
  );
  const sys = testSys({
    stateDir: t.sys.stateDir,
    cwd: t.repo.path,
    env: { PITROOM_CONFIG: configPath },
  });
  const engine = createEngine(sys, { backends: () => t.backend });
  const paidFirst = "codex:fake/paid-model,opencode:fake/free-model";
  const run = async (worker: string) => {
    const warnings: string[] = [];
    const report = await engine.run({ task: "q", worker }, { onWarning: (w) => warnings.push(w) });
    return { report, warnings };
  };
  // 0.45 then 0.9: under 80% no word of the budget.
  const first = await run(paidFirst);
  assert.deepEqual(first.warnings, []);
  assert.equal(first.report.notes, undefined);
  assert.equal(await spentSince(sys, startOfDay(sys.clock.now())), 0.45);
  const second = await run(paidFirst);
  assert.deepEqual(second.warnings, []);
  // 0.9 spent: 90%, warned; the paid worker still runs.
  const third = await run(paidFirst);
  assert.deepEqual(third.warnings, ["Spent $0.90 of the daily budget $1.00 today (90%)"]);
  assert.deepEqual(third.report.notes, third.warnings);
  assert.equal(third.report.attempts[0]?.model, "fake/paid-model");
  // 1.35 spent: only the free target of the chain runs.
  const fourth = await run(paidFirst);
  assert.deepEqual(fourth.report.chain, [{ worker: "opencode", model: "fake/free-model" }]);
  assert.equal(fourth.report.answer, "answered by fake/free-model");
  assert.match(
    fourth.warnings[0]!,
    /only free workers run \(left out codex \(fake\/paid-model\)\)/,
  );
  await assert.rejects(() => run("codex:fake/paid-model"), (error) => {
    assert.ok(error instanceof RefusedError);
    assert.equal(error.code, "budget_spent");
    return true;
  });
});

Deno.test("spentSince() counts audits' own costs recorded on the audited runs", async () => {
  await using t = await engineWorld(await tempRepo({ "a.txt": "a\n" }), () => [{ answer: "x" }]);
  const engine = createEngine(t.sys, { backends: () => t.backend });
  const report = await engine.run({ task: "q", worker: "opencode:fake/free-model" });
  const now = t.sys.clock.now();
  const { indexRun } = await import("../../src/store/history/mod.ts");
  await indexRun(t.sys, {
    ...report,
    audit: {
      run: "20261201-120000-0000",
      state: "done",
      sampled: false,
      verdict: "AGREE",
      disputed: [],
      startedAt: now,
      endedAt: now,
      cost: 0.25,
      fix: { state: "done", cost: 0.5 },
    },
  });
  assert.equal(await spentSince(t.sys, startOfDay(now)), 0.75);
  assert.equal(await spentSince(t.sys, now + 1), 0);
});
