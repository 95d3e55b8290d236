/**
 * A foreground run's history row is written by the next history read: the run ends marked
 * pending (`indexLater`), neither it nor its hand-over opens the database (`pitroom run` ends
 * without SQLite), and the next read writes the row with the hand-over in one write. A run of the
 * host (no `indexLater`) is indexed when it ends.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { statePaths } from "../../src/store/paths.ts";
import { withHistory } from "../../src/store/history/ready.ts";
import { exists } from "../../src/sys/fs.ts";
import { fakeBackend } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

async function world() {
  const repo = await tempRepo({ "a.txt": "a\n" });
  const state = await tempDir("pitroom-index-later-");
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  const backend = fakeBackend(() => [{ answer: "The answer is 42." }]);
  return {
    sys,
    paths: statePaths(state.path),
    engine: createEngine(sys, { backends: () => backend, dir: repo.path }),
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

const request = { task: "What is the answer?", worker: "opencode", timeoutMs: 60_000 };

Deno.test("a foreground run with indexLater is indexed, with its hand-over, by the next history read", async () => {
  await using w = await world();
  const done = await w.engine.run(request, { indexLater: true });
  assert.equal(done.state, "done", done.message);
  const mark = join(w.paths.historyPending, done.id);
  assert.ok(await exists(mark), "the run is left pending");
  assert.ok(!(await exists(w.paths.history)), "the run opened no history database");
  // What the CLI does once its report is printed: the hand-over opens no database either.
  await w.engine.handedOver([{ id: done.id, bytes: 4000 }], { via: "cli", what: "run" });
  assert.ok(!(await exists(w.paths.history)), "the hand-over opened the history database");
  const row = await withHistory(
    w.sys,
    (db) =>
      db.prepare("SELECT returned_tokens AS returned FROM runs").all() as { returned: number }[],
  );
  assert.equal(row.length, 1, "the next read indexed the run");
  assert.ok(row[0]!.returned >= 1000, `the hand-over is counted: ${row[0]!.returned} tokens`);
  assert.ok(!(await exists(mark)), "the pending mark went");
});

Deno.test("a run without indexLater (the host's) is indexed when it ends", async () => {
  await using w = await world();
  const done = await w.engine.run(request);
  assert.equal(done.state, "done", done.message);
  assert.ok(!(await exists(join(w.paths.historyPending, done.id))));
  assert.ok(await exists(w.paths.history));
});

Deno.test("a foreground run whose run.json is damaged before the history is read keeps its row: the pending mark holds its record", async () => {
  await using w = await world();
  const done = await w.engine.run(request, { indexLater: true });
  assert.equal(done.state, "done", done.message);
  const file = w.paths.run(done.id).record;
  const text = await Deno.readTextFile(file);
  await Deno.writeTextFile(file, text.slice(0, text.length / 3));
  const rows = await withHistory(
    w.sys,
    (db) => db.prepare("SELECT id FROM runs").all() as { id: string }[],
  );
  assert.deepEqual(rows.map((row) => row.id), [done.id], "the next read indexed the run");
  assert.ok(!(await exists(join(w.paths.historyPending, done.id))), "the pending mark went");
  // Shown from the history, as a run whose record was damaged after it was indexed is.
  const kept = await w.engine.history.kept(done.id, null);
  assert.equal(kept?.record.id, done.id);
  assert.equal(kept?.record.answer, "The answer is 42.");
});
