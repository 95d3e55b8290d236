/**
 * What was handed over of a run (store/returned.ts): lines appended by any number of writers,
 * a line cut short left out, the receipt's returned figures derived from the bytes; and the
 * history's row follows, whether the hand-over comes before the run is indexed or after.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../src/engine/mod.ts";
import { indexRun } from "../../src/store/history/mod.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { Receipt, RunRecord } from "../../src/store/record.ts";
import {
  appendHandover,
  parseHandovers,
  readHandovers,
  withHandovers,
} from "../../src/store/returned.ts";
import { finishedRun, writeRuns } from "../cli/_setup.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

const RECEIPT: Receipt = {
  tokens: { input: 9_000, output: 800, cached: 200, reasoning: 0 },
  returnedTokens: 90,
  compression: 111.1,
  workerCost: 0,
  workerCostSource: "free",
  primary: "sonnet",
  primaryCost: 0.04,
  saved: 0.04,
};

function run(id: string): RunRecord {
  return {
    ...finishedRun(id, [{ worker: "opencode", startedAt: 1, endedAt: 2, outcome: "ok" }], {
      input: 9_000,
      output: 800,
      cached: 200,
    }),
    createdAt: 1,
    endedAt: 2,
    receipt: RECEIPT,
  };
}

Deno.test("parseHandovers() counts whole lines only: a line cut short or not a hand-over is left out", () => {
  const line = (bytes: number) => JSON.stringify({ at: 1, via: "mcp", what: "pitroom_run", bytes });
  const text = [
    line(400),
    "",
    line(100),
    '{"at": 1, "via": "mcp", "what": "pitroom_wait", "by',
    '{"at": 1, "via": "fax", "what": "x", "bytes": 5}',
    '{"at": 1, "via": "cli", "what": "x", "bytes": -5}',
    "[1, 2]",
  ].join("\n");
  assert.deepEqual(parseHandovers(text).map((h) => h.bytes), [400, 100]);
});

Deno.test("withHandovers() makes the receipt's returned tokens and compression the bytes handed over", () => {
  const record = run("20261201-100000-aaaa");
  assert.equal(withHandovers(record, []), record, "nothing handed over: the estimate stands");
  const handed = withHandovers(record, [
    { at: 1, via: "mcp", what: "pitroom_run", bytes: 398 },
    { at: 2, via: "cli", what: "wait", bytes: 3 },
  ]);
  assert.deepEqual(handed.receipt!.returned, { bytes: 401, handovers: 2 });
  assert.equal(handed.receipt!.returnedTokens, 101, "401 bytes, 4 a token, rounded up");
  assert.equal(handed.receipt!.compression, 99, "10,000 burned / 101 returned");
  const { receipt: _, ...unpriced } = record;
  assert.equal(withHandovers(unpriced, [{ at: 1, via: "cli", what: "run", bytes: 9 }]), unpriced);
});

Deno.test("hand-overs from several writers at once are all counted, and reading a record folds them in", async () => {
  await using state = await tempDir("pitroom-returned-");
  const paths = statePaths(state.path);
  const record = run("20261201-100000-bbbb");
  await writeRuns(state.path, [record]);
  await Promise.all(
    Array.from(
      { length: 50 },
      (_, i) =>
        appendHandover(paths, record.id, { at: i, via: "mcp", what: "pitroom_wait", bytes: 10 }),
    ),
  );
  assert.equal((await readHandovers(paths, record.id)).length, 50);
  const engine = createEngine(testSys({ stateDir: state.path }));
  assert.deepEqual((await engine.get(record.id)).receipt!.returned, {
    bytes: 500,
    handovers: 50,
  });
});

Deno.test("the history counts a hand-over made before the run was indexed, and one made after", async () => {
  await using state = await tempDir("pitroom-returned-");
  const sys = testSys({ stateDir: state.path, cwd: "/repo" });
  const engine = createEngine(sys);
  const early = run("20261201-100000-cccc");
  const late = run("20261201-100001-dddd");
  await writeRuns(state.path, [early, late]);
  // Handed over while the history has no row yet (a wait ending as the run is indexed).
  await engine.handedOver([{ id: early.id, bytes: 800 }], { via: "mcp", what: "pitroom_run" });
  await indexRun(sys, early);
  await indexRun(sys, late);
  await engine.handedOver([{ id: late.id, bytes: 40 }], { via: "cli", what: "wait" });
  const savings = await engine.savings({ since: null });
  assert.equal(savings.total.returnedTokens, 200 + 10);
  // What the history keeps of a run (shown once its folder is cleaned) says it too.
  const kept = await engine.history.kept(late.id, null);
  assert.deepEqual(kept?.record.receipt?.returned, { bytes: 40, handovers: 1 });
});
