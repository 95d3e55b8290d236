import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { withHistory } from "../../src/store/history/ready.ts";
import { indexRun } from "../../src/store/history/mod.ts";
import { SCHEMA_VERSION } from "../../src/store/history/schema.ts";
import { searchRuns } from "../../src/engine/history/search.ts";
import { statePaths } from "../../src/store/paths.ts";
import { writeRecord } from "../../src/store/runs.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";
import { writeFakeRun } from "./_fixtures.ts";

async function indexedWithRefs() {
  const state = await tempDir("pitroom-history-");
  const sys = testSys({ stateDir: state.path });
  const checked = await writeFakeRun(state.path, { task: "Where?", endedAt: Date.now() - 1000 });
  checked.refs = { verified: 4, total: 5, failed: [{ ref: "a.ts:9", reason: "no such file" }] };
  await writeRecord(statePaths(state.path), checked);
  await indexRun(sys, checked);
  const plain = await writeFakeRun(state.path, { task: "Other", endedAt: Date.now() });
  await indexRun(sys, plain);
  return { sys, state, [Symbol.asyncDispose]: () => state[Symbol.asyncDispose]() };
}

Deno.test("the history keeps each answer's reference check: a column and the search hit", async () => {
  await using t = await indexedWithRefs();
  const hits = await withHistory(t.sys, (db) => searchRuns(db, {}, {}));
  assert.deepEqual(hits.map((h) => [h.task, h.refs]), [["Other", null], ["Where?", "4/5"]]);
});

Deno.test("a version 2 database gains the refs columns, filled from the records it holds", async () => {
  await using t = await indexedWithRefs();
  const path = statePaths(t.state.path).history;
  const db = new DatabaseSync(path);
  db.exec(`ALTER TABLE runs DROP COLUMN refs_verified;
    ALTER TABLE runs DROP COLUMN refs_total;
    ALTER TABLE runs DROP COLUMN host;
    PRAGMA user_version = 2;`);
  db.close();
  const hits = await withHistory(t.sys, (db) => {
    const version = db.prepare("PRAGMA user_version").get() as { user_version: number };
    assert.equal(version.user_version, SCHEMA_VERSION);
    return searchRuns(db, {}, {});
  });
  assert.deepEqual(hits.map((h) => h.refs), [null, "4/5"]);
});

Deno.test("a cached answer is the cache's in the history, not a worker's", async () => {
  await using t = await indexedWithRefs();
  const cached = await writeFakeRun(t.state.path, { task: "Where?", endedAt: Date.now() + 1000 });
  cached.cached = { from: "20261201-100000-aaaa", at: 1 };
  await writeRecord(statePaths(t.state.path), cached);
  await indexRun(t.sys, cached);
  const hits = await withHistory(t.sys, (db) => searchRuns(db, {}, {}));
  assert.deepEqual(hits.map((h) => [h.task, h.worker, h.model]).slice(0, 2), [
    ["Where?", "cache", null],
    ["Other", "opencode", null],
  ]);
});

Deno.test("a version 3 database gains the host column, filled from the records it holds", async () => {
  await using t = await indexedWithRefs();
  const remote = await writeFakeRun(t.state.path, { task: "Far", endedAt: Date.now() + 1000 });
  remote.host = "box";
  await writeRecord(statePaths(t.state.path), remote);
  await indexRun(t.sys, remote);
  const db = new DatabaseSync(statePaths(t.state.path).history);
  db.exec(`ALTER TABLE runs DROP COLUMN host; PRAGMA user_version = 3;`);
  db.close();
  const hits = await withHistory(t.sys, (db) => searchRuns(db, {}, {}));
  assert.deepEqual(hits.map((h) => [h.task, h.host]), [
    ["Far", "box"],
    ["Other", null],
    ["Where?", null],
  ]);
});
