/**
 * `rankWorkers`: the configured chain reordered by each target's recent attempts and audits,
 * only targets with enough attempts moved, ties kept in the configured order, and an explicit
 * `-W` never reordered.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  rankChain,
  scoreOf,
  type TargetRecord,
  targetRecords,
} from "../../src/engine/request/rank.ts";
import { createEngine } from "../../src/engine/mod.ts";
import { indexRun } from "../../src/store/history/mod.ts";
import type { Target } from "../../src/store/record.ts";
import { engineWorld } from "../support/engine_world.ts";
import { testSys } from "../support/sys.ts";
import { tempRepo } from "../support/temp.ts";

const A: Target = { worker: "opencode", model: "fake/a" };
const B: Target = { worker: "codex", model: "fake/b" };
const C: Target = { worker: "claude", model: "fake/c" };

function rec(attempts: number, ok: number, extra: Partial<TargetRecord> = {}): TargetRecord {
  return { attempts, ok, disagreed: 0, partly: 0, ...extra };
}

Deno.test("rankChain() sorts the targets with enough attempts by score, best first", () => {
  const records = new Map([
    ["opencode:fake/a", rec(10, 5)],
    ["codex:fake/b", rec(10, 9)],
    ["claude:fake/c", rec(10, 7)],
  ]);
  assert.deepEqual(rankChain([A, B, C], records), { chain: [B, C, A], changed: true });
});

Deno.test("rankChain() leaves a target with fewer than 5 attempts in its place, and ties in order", () => {
  const records = new Map([
    ["opencode:fake/a", rec(6, 1)],
    ["codex:fake/b", rec(4, 4)],
    ["claude:fake/c", rec(6, 6)],
  ]);
  // b has too few attempts: it stays second; a and c swap the places ranked targets held.
  assert.deepEqual(rankChain([A, B, C], records).chain, [C, B, A]);
  const tied = new Map([["opencode:fake/a", rec(5, 5)], ["codex:fake/b", rec(8, 8)]]);
  assert.deepEqual(rankChain([A, B], tied), { chain: [A, B], changed: false });
  assert.deepEqual(rankChain([A, B], new Map()), { chain: [A, B], changed: false });
});

Deno.test("scoreOf(): an answer an audit disagreed with counts against the target, a partly one half", () => {
  assert.equal(scoreOf(rec(10, 10)), 1);
  assert.equal(scoreOf(rec(10, 10, { disagreed: 2 })), 0.8);
  assert.equal(scoreOf(rec(10, 10, { partly: 2 })), 0.9);
  const records = new Map([
    ["opencode:fake/a", rec(10, 10, { disagreed: 3 })],
    ["codex:fake/b", rec(10, 9)],
  ]);
  assert.deepEqual(rankChain([A, B], records).chain, [B, A]);
});

Deno.test("rankWorkers through real runs: the history's record reorders the configured chain, never -W", async () => {
  await using t = await engineWorld(
    await tempRepo({ "a.txt": "a\n" }),
    (spec) =>
      spec.model === "fake/a" ? [{ fail: "model_not_found" }] : [{ answer: `by ${spec.model}` }],
  );
  const configPath = join(t.sys.stateDir, "config.json");
  const config = { worker: "opencode:fake/a", fallback: ["codex:fake/b"], rankWorkers: true };
  await Deno.writeTextFile(configPath, JSON.stringify(config));
  const sys = testSys({
    stateDir: t.sys.stateDir,
    cwd: t.repo.path,
    env: { PITROOM_CONFIG: configPath },
  });
  const engine = createEngine(sys, { backends: () => t.backend });
  // Four failures of a, four answers of b: too few to rank, the configured order holds.
  for (let i = 0; i < 4; i++) {
    await engine.run({ task: "q", worker: "opencode:fake/a" });
    await engine.run({ task: "q", worker: "codex:fake/b" });
  }
  const early = await engine.run({ task: "q" });
  assert.deepEqual(early.chain, [A, B]);
  assert.equal(early.notes, undefined);
  assert.deepEqual(early.attempts.map((x) => x.outcome), ["model_not_found", "ok"]);
  // That run was the fifth attempt of each: ranked now, b first.
  const records = await targetRecords(sys, 0);
  assert.deepEqual(records.get("opencode:fake/a"), rec(5, 0));
  assert.deepEqual(records.get("codex:fake/b"), rec(5, 5));
  const ranked = await engine.run({ task: "q" });
  assert.deepEqual(ranked.chain, [B, A]);
  assert.equal(ranked.answer, "by fake/b");
  assert.match(
    ranked.notes?.join("\n") ?? "",
    /Chain ranked by recent results \(rankWorkers\): codex/,
  );
  // An explicit -W keeps its order.
  const explicit = await engine.run({ task: "q", worker: "opencode:fake/a,codex:fake/b" });
  assert.deepEqual(explicit.chain, [A, B]);
  // An audit that disagreed with b is on b's record.
  await indexRun(sys, {
    ...ranked,
    audit: { state: "done", verdict: "DISAGREE", disputed: ["x"], sampled: false, startedAt: 0 },
  });
  assert.equal((await targetRecords(sys, 0)).get("codex:fake/b")?.disagreed, 1);
});
