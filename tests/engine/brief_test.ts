/**
 * A run's brief (engine/follow/brief.ts): what an agent acts on and nothing internal, next
 * actions by the run's state and face; and a result that states its own size (handover.ts).
 */
import assert from "node:assert/strict";
import {
  briefText,
  runBrief,
  settleHandover,
  sharesOf,
  withReturned,
} from "../../src/engine/present.ts";
import type { ChangedFile, RunRecord } from "../../src/store/record.ts";
import { finishedRun } from "../cli/_setup.ts";

const ID = "20261201-100000-aaaa";

function record(fields: Partial<RunRecord> = {}): RunRecord {
  return {
    ...finishedRun(ID, [{
      worker: "opencode",
      model: "opencode/big-pickle",
      startedAt: 1_000,
      endedAt: 9_000,
      outcome: "ok",
      workerPid: 4242,
      sessionId: "ses_secret",
    }], { input: 12_000, output: 200 }),
    startedAt: 1_000,
    endedAt: 9_000,
    supervisorPid: 4141,
    cacheKey: "f".repeat(64),
    settings: { maxParallel: 20, limits: {} },
    answer: "It is 41, in src/app.ts:1.",
    refs: { verified: 1, total: 2, failed: [{ ref: "src/b.ts:99", reason: "past the end" }] },
    receipt: {
      tokens: { input: 12_000, output: 200, cached: 0, reasoning: 0 },
      returnedTokens: 30,
      compression: 406.7,
      workerCost: 0,
      workerCostSource: "free",
      primary: "sonnet",
      primaryCost: 0.039,
      saved: 0.039,
    },
    ...fields,
  };
}

function file(path: string): ChangedFile {
  return { path, status: "modified", added: 2, removed: 1, binary: false };
}

const changes = (files: ChangedFile[]) => ({
  before: { tree: "t", head: null, bareDirs: [], ignored: [] },
  after: "u",
  files,
});

Deno.test("runBrief() carries the answer, references and receipt, and nothing of how the run ran", () => {
  const brief = runBrief(record(), 10_000);
  assert.deepEqual(brief, {
    id: ID,
    state: "done",
    outcome: "ok",
    mode: "read",
    worker: "opencode (opencode/big-pickle)",
    time: "8s",
    answer: "It is 41, in src/app.ts:1.",
    refs: "1/2 verified; ✗ src/b.ts:99 (past the end)",
    receipt:
      "12,200 tokens burned · ~30 returned · 407x compression · ~$0.0390 saved vs Claude Sonnet",
  });
  const text = briefText(brief);
  for (const internal of ["4242", "4141", "ses_secret", "fffff", "maxParallel"]) {
    assert.ok(!JSON.stringify(brief).includes(internal) && !text.includes(internal), internal);
  }
});

Deno.test("runBrief() says what to do next by where the run's changes stand, as tool calls or commands", () => {
  const write = record({ mode: "write", changes: changes([file("src/app.ts")]) });
  assert.deepEqual(runBrief(write, 0).next, ["pitroom_revert"]);
  assert.deepEqual(runBrief(write, 0, { face: "cli" }).next, [`pitroom revert ${ID}`]);
  assert.deepEqual(runBrief(write, 0).changed, ["M src/app.ts +2 -1"]);
  const moved = record({
    mode: "write",
    changes: { ...changes([file("a")]), moved: { index: true } },
  });
  assert.deepEqual(runBrief(moved, 0).next, [`pitroom_revert {"run":"${ID}","force":true}`]);
  const reverted = record({ mode: "write", changes: { ...changes([file("a")]), reverted: true } });
  assert.equal(runBrief(reverted, 0).next, undefined);
  const copy = { copyRoot: "/copy", links: [] };
  const isolate = record({ mode: "isolate", changes: changes([file("a")]), isolation: copy });
  assert.deepEqual(runBrief(isolate, 0).next, ["pitroom_apply", "pitroom_discard"]);
  const applied = record({
    mode: "isolate",
    changes: changes([file("a")]),
    isolation: { ...copy, applied: { at: 1, files: ["a"] } },
  });
  assert.deepEqual(runBrief(applied, 0).next, ["pitroom_revert"]);
  const live = record({ state: "running", endedAt: undefined, outcome: undefined });
  const brief = runBrief(live, 5_000);
  assert.deepEqual(brief.next, ["pitroom_wait"]);
  assert.equal(brief.outcome, undefined);
  assert.equal(brief.progress, "0 steps, 0 tool calls");
  const auditing = record({
    audit: { run: "A1", state: "running", sampled: false, disputed: [], startedAt: 1 },
  });
  assert.deepEqual(runBrief(auditing, 0).next, ['pitroom_wait {"runs":["A1"]}']);
});

Deno.test("runBrief() lists at most FILE_LIMIT changed files and says how to see the rest", () => {
  const many = Array.from({ length: 130 }, (_, i) => file(`src/f${i}.ts`));
  const changed = runBrief(record({ mode: "write", changes: changes(many) }), 0).changed!;
  assert.equal(changed.length, 101);
  assert.equal(changed.at(-1), `… 30 more (pitroom_show {"run":"${ID}","full":true})`);
});

Deno.test("runBrief() of a failed run says its problem and exit; a listing's entry is short", () => {
  const failed = record({
    state: "problem",
    outcome: "timeout",
    exit: 4,
    message: "The worker ran out of time (30m)",
    answer: undefined,
  });
  const brief = runBrief(failed, 0);
  assert.equal(brief.exit, 4);
  assert.equal(brief.problem, "The worker ran out of time (30m)");
  assert.match(briefText(brief), /^problem \(exit 4\): The worker ran out of time/m);
  const line = runBrief(record({ task: "Where is the answer defined?" }), 0, { detail: "line" });
  assert.deepEqual(Object.keys(line), ["id", "state", "outcome", "mode", "worker", "time", "task"]);
});

Deno.test("sharesOf() splits every byte, in proportion, and settleHandover() prints its own size", () => {
  const shares = sharesOf(1001, new Map([["a", 1], ["b", 1], ["c", 1]]));
  assert.equal([...shares.values()].reduce((s, n) => s + n, 0), 1001);
  assert.deepEqual([...sharesOf(10, new Map([["a", 3], ["b", 1]])).values()], [8, 2]);
  assert.deepEqual([...sharesOf(5, new Map([["a", 0], ["b", 0]])).values()], [3, 2]);

  const runs = [record(), record({ id: "20261201-100000-bbbb", answer: "x".repeat(3000) })];
  const { result, shares: settled } = settleHandover(runs, {
    render: (shown) => shown.map((r) => `${r.id}: ${r.answer} (${runBrief(r, 0).receipt})\n`),
    size: (parts) => parts.join("").length,
    parts: (parts) => new Map(runs.map((r, i) => [r.id, parts[i]!.length])),
  });
  assert.equal([...settled.values()].reduce((s, n) => s + n, 0), result.join("").length);
  for (const [i, r] of runs.entries()) {
    const tokens = Math.ceil(settled.get(r.id)! / 4);
    assert.ok(result[i]!.includes(`~${tokens.toLocaleString("en-US")} returned`), result[i]);
  }
});

Deno.test("settleHandover(): two sizes that each print the other settle on the larger, padded to it", () => {
  const run = record();
  // 2,032 bytes print as 2,034 and 2,034 as 2,032 (a digit of the compression comes and goes).
  const size = (bytes: number | undefined) =>
    bytes === undefined ? 2000 : bytes === 2032 ? 2034 : bytes === 2034 ? 2032 : 2032;
  const renders: number[] = [];
  const handing = {
    render: (shown: RunRecord[]) => {
      const bytes = shown[0]!.receipt?.returned?.bytes;
      renders.push(bytes ?? 0);
      return "x".repeat(
        size(bytes === undefined ? undefined : bytes - (run.receipt?.returned?.bytes ?? 0)),
      );
    },
    size: (text: string) => text.length,
    parts: (text: string) => new Map([[run.id, text.length]]),
  };
  const { result, shares } = settleHandover([run], {
    ...handing,
    pad: (text, bytes) => text + " ".repeat(bytes),
  });
  assert.equal(result.length, 2034);
  assert.equal(shares.get(run.id), 2034);
  // The figure the result prints is its own size.
  assert.equal(renders.at(-1)! - (run.receipt?.returned?.bytes ?? 0), result.length);
  // Without a way to pad, the shares are still what was measured (exact), the figure a bit off.
  const plain = settleHandover([run], handing);
  assert.equal(plain.shares.get(run.id), plain.result.length);
});

Deno.test("settleHandover(): several runs where no size prints itself state exactly their shares, padded", () => {
  for (const count of [1, 2, 3, 5]) {
    const runs = Array.from({ length: count }, (_, i) => record({ id: `20261201-10000${i}-aaaa` }));
    // Each run's part: its figure, and a byte more while the figure is under `low` (a decimal
    // of its compression that a larger figure loses). The parts are alike, so the size splits
    // evenly; the trailer makes the size cross `low` where no size prints itself.
    const part = (r: RunRecord, low: number) => {
      const bytes = r.receipt?.returned?.bytes;
      return `${r.id} ${String(bytes ?? 0).padStart(8)}${
        bytes === undefined || bytes < low ? "+" : ""
      }\n`;
    };
    // The size with every figure at `low` or over (the `+` of the plain render's part left out).
    const above = (part(runs[0]!, 0).length - 1) * count;
    const trailer = [0, 1].find((t) =>
      (count * Math.ceil((above + t + 1) / count) - above - t) % 2
    )!;
    const low = Math.ceil((above + trailer + 1) / count);
    const render = (shown: RunRecord[]) =>
      shown.map((r) => part(r, low)).join("") + "#".repeat(trailer);
    const sizeStating = (size: number) => {
      const shares = sharesOf(size, new Map(runs.map((r) => [r.id, 1])));
      return render(runs.map((r) => withReturned(r, { bytes: shares.get(r.id)!, handovers: 1 })))
        .length;
    };
    for (let size = above - 10; size < above + 2 * count + 10; size++) {
      assert.notEqual(sizeStating(size), size, `${count} run(s): ${size} bytes print themselves`);
    }
    const { result, shares } = settleHandover(runs, {
      render,
      size: (text) => text.length,
      parts: (text) =>
        new Map(text.split("\n").slice(0, count).map((l, i) => [runs[i]!.id, l.length + 1])),
      pad: (text, bytes) => text + " ".repeat(bytes),
    });
    const stated = [...result.matchAll(/ +(\d+)\+?\n/g)].map((m) => Number(m[1]));
    assert.deepEqual(
      stated,
      runs.map((r) => shares.get(r.id)),
      `${count} run(s): each states its share`,
    );
    assert.equal([...shares.values()].reduce((s, n) => s + n, 0), result.length);
    assert.match(result, / $/, `${count} run(s): padded`);
  }
});
