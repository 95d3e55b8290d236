import assert from "node:assert/strict";
import { join } from "node:path";
import { historyCommand } from "../../src/cli/history.ts";
import { savingsCommand } from "../../src/cli/savings.ts";
import { indexRun } from "../../src/store/history/mod.ts";
import { withHistory } from "../../src/store/history/ready.ts";
import { savingsTotals } from "../../src/engine/history/savings.ts";
import { computeStats } from "../../src/engine/history/stats.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";
import { type FakeRun, writeFakeRun } from "./_fixtures.ts";

const DAY = 86_400_000;
const NOW = Date.now();
/** Noon of the local day `daysAgo` days back, so runs fall on known days in any time zone. */
function noon(daysAgo: number): number {
  const d = new Date(NOW - daysAgo * DAY);
  d.setHours(12, 0, 0, 0);
  return d.getTime();
}
function day(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${
    String(d.getDate()).padStart(2, "0")
  }`;
}

const RUNS: FakeRun[] = [
  // Two ok runs of opencode:big-pickle on day -2 (free model: no worker cost).
  {
    task: "a",
    endedAt: noon(2),
    durationMs: 10_000,
    model: "big-pickle",
    tokens: { input: 1000, output: 100, cached: 500 },
    receipt: { workerCost: 0, primaryCost: 0.5, returnedTokens: 40 },
  },
  {
    task: "b",
    endedAt: noon(2) + 1000,
    durationMs: 30_000,
    model: "big-pickle",
    tokens: { input: 3000, output: 300, reasoning: 50 },
    receipt: { workerCost: 0, primaryCost: 1.5, returnedTokens: 60 },
  },
  // codex on day -1: one ok, one failed after a rate-limited opencode attempt, one rate limited.
  {
    task: "c",
    endedAt: noon(1),
    durationMs: 20_000,
    worker: "codex",
    model: "gpt-5.5",
    tokens: { input: 2000, output: 200 },
    receipt: { workerCost: 0.25, primaryCost: 1, returnedTokens: 100 },
  },
  {
    task: "d",
    endedAt: noon(1) + 1000,
    durationMs: 40_000,
    worker: "codex",
    model: "gpt-5.5",
    outcome: "failed",
    before: [{ worker: "opencode", model: "big-pickle", outcome: "rate_limited" }],
    tokens: { input: 500, output: 0 },
    receipt: { workerCost: 0.05, primaryCost: 0.25, returnedTokens: 0 },
  },
  {
    task: "e",
    endedAt: noon(1) + 2000,
    durationMs: 1000,
    worker: "gemini",
    outcome: "quota",
    tokens: { input: 0, output: 0 },
  },
  // Outside a 30-day period.
  {
    task: "old",
    endedAt: noon(45),
    durationMs: 5000,
    model: "big-pickle",
    tokens: { input: 7, output: 7 },
    receipt: { workerCost: 0, primaryCost: 9, returnedTokens: 1 },
  },
];

async function indexed() {
  const state = await tempDir("pitroom-stats-");
  const sys = testSys({ stateDir: state.path });
  for (const run of RUNS) await indexRun(sys, await writeFakeRun(state.path, run));
  return { sys, state: state.path, [Symbol.asyncDispose]: () => state[Symbol.asyncDispose]() };
}

Deno.test("history stats adds up runs, success, time, tokens and savings; limits counted apart", async () => {
  await using t = await indexed();
  const stats = await withHistory(t.sys, (db) => computeStats(db, NOW - 30 * DAY, NOW));
  const total = stats.total;
  assert.equal(total.runs, 5);
  assert.equal(total.ok, 3);
  assert.equal(total.limited, 1);
  assert.equal(total.problems, 1);
  assert.equal(total.successRate, 3 / 4);
  assert.equal(total.totalMs, 101_000);
  assert.equal(total.avgMs, 20_200);
  assert.deepEqual(total.tokens, { input: 6500, output: 600, cached: 500, reasoning: 50 });
  assert.equal(total.returnedTokens, 200);
  assert.ok(Math.abs(total.workerCost - 0.3) < 1e-9);
  assert.ok(Math.abs(total.primaryCost - 3.25) < 1e-9);
  assert.ok(Math.abs(total.saved - 2.95) < 1e-9);

  const byTarget = Object.fromEntries(stats.targets.map((r) => [r.label, r]));
  assert.deepEqual(Object.keys(byTarget).sort(), [
    "codex:gpt-5.5",
    "gemini",
    "opencode:big-pickle",
  ]);
  const pickle = byTarget["opencode:big-pickle"]!;
  assert.equal(pickle.runs, 2);
  assert.equal(pickle.avgMs, 20_000);
  assert.equal(pickle.limitedAttempts, 1);
  assert.equal(byTarget["codex:gpt-5.5"]!.successRate, 0.5);
  assert.equal(byTarget["gemini"]!.limited, 1);
  assert.equal(byTarget["gemini"]!.successRate, null);

  assert.deepEqual(stats.days.map((d) => [d.label, d.runs, d.ok]), [
    [day(noon(2)), 2, 2],
    [day(noon(1)), 3, 1],
  ]);

  const all = await withHistory(t.sys, (db) => computeStats(db, null, NOW));
  assert.equal(all.total.runs, 6);
  assert.equal(all.days.length, 3);
});

Deno.test("savings totals sum the receipts per worker and model, most saved first", async () => {
  await using t = await indexed();
  const totals = await withHistory(t.sys, (db) => savingsTotals(db, NOW - 30 * DAY, NOW));
  assert.equal(totals.primary, "sonnet");
  assert.equal(totals.since, NOW - 30 * DAY);
  assert.equal(totals.total.runs, 5);
  assert.ok(Math.abs(totals.total.saved - 2.95) < 1e-9);
  assert.deepEqual(totals.rows.map((r) => [r.label, r.runs, r.ok]), [
    ["opencode:big-pickle", 2, 2],
    ["codex:gpt-5.5", 2, 1],
    ["gemini", 1, 0],
  ]);
  assert.equal(totals.rows[0]!.saved, 2);
  assert.deepEqual(totals.rows[0]!.tokens, {
    input: 4000,
    output: 400,
    cached: 500,
    reasoning: 50,
  });
  const all = await withHistory(t.sys, (db) => savingsTotals(db, null, NOW));
  assert.equal(all.total.runs, 6);
  assert.ok(Math.abs(all.total.saved - 11.95) < 1e-9);
});

Deno.test("pitroom savings says the figures are estimates; --card writes an SVG, --badge prints one", async () => {
  await using t = await indexed();
  const cwd = join(t.state, "out");
  await Deno.mkdir(cwd);
  const sys = { ...testSys({ stateDir: t.state, cwd }) };
  assert.equal(
    await savingsCommand({
      sys,
      flags: { since: "30d", models: true, card: "card.svg" },
      args: [],
    }),
    0,
  );
  const text = sys.stdoutText();
  assert.match(text, /Savings, last 30d: 5 run\(s\), 3 ok/);
  assert.match(text, /saved {5}~\$2\.95/);
  assert.match(text, /opencode:big-pickle +2 +2 /);
  assert.match(text, /estimates/);
  const svg = await Deno.readTextFile(join(cwd, "card.svg"));
  assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, /\$2\.95/);

  const json = testSys({ stateDir: t.state, cwd });
  await savingsCommand({ sys: json, flags: { since: "all", badge: true, json: true }, args: [] });
  const out = JSON.parse(json.stdoutText());
  assert.equal(out.since, null);
  assert.equal(out.total.runs, 6);
  assert.match(out.estimate, /estimates/);
  assert.match(out.badge.markdown, /^!\[/);
  assert.match(out.badge.svg, /<svg/);
  await assert.rejects(
    savingsCommand({ sys: json, flags: { since: "30d", card: "card.png" }, args: [] }),
    /ending in \.svg/,
  );
});

Deno.test("pitroom history stats prints totals, per target and per day; --json has the same figures", async () => {
  await using t = await indexed();
  await historyCommand({ sys: t.sys, flags: {}, args: ["stats"] });
  const text = t.sys.stdoutText();
  assert.match(text, /^5 run\(s\), last 30d: 3 ok, 1 problem\(s\), 1 rate limited or out of quota/);
  assert.match(text, /success 75%/);
  assert.match(text, /opencode:big-pickle +2 +2 +0 +0 +100% +20s/);
  assert.match(text, /attempts stopped by a rate limit or quota.*opencode:big-pickle 1/);
  const json = testSys({ stateDir: t.state });
  await historyCommand({ sys: json, flags: { json: true, since: "all" }, args: ["stats"] });
  const stats = JSON.parse(json.stdoutText());
  assert.equal(stats.total.runs, 6);
  assert.equal(stats.since, null);
});

Deno.test("stats and savings of an empty history are zeros and say so", async () => {
  await using state = await tempDir("pitroom-stats-empty-");
  const sys = testSys({ stateDir: state.path });
  const stats = await withHistory(sys, (db) => computeStats(db, null, NOW));
  assert.equal(stats.total.runs, 0);
  assert.equal(stats.total.successRate, null);
  assert.deepEqual([stats.targets, stats.days], [[], []]);
  const totals = await withHistory(sys, (db) => savingsTotals(db, null, NOW));
  assert.deepEqual([totals.total.runs, totals.total.saved, totals.primary], [0, 0, "unknown"]);
  await savingsCommand({ sys, flags: { since: "7d" }, args: [] });
  assert.equal(sys.stdoutText(), "No finished runs (last 7d)\n");
});
