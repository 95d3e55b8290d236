/**
 * A foreground run's history row is written once its report is out: the run ends marked pending
 * (`indexLater`), its hand-over opens no database, and `indexNow` (what `pitroom run` calls after
 * printing) writes the row with the hand-over in one write; a run the caller never indexes is
 * indexed by the next history read. A run of the host (no `indexLater`) is indexed when it ends.
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

Deno.test("indexNow writes the pending run's row once, with its hand-over, as `pitroom run` does after its report", async () => {
  await using w = await world();
  const done = await w.engine.run(request, { indexLater: true });
  await w.engine.handedOver([{ id: done.id, bytes: 4000 }], { via: "cli", what: "run" });
  await w.engine.indexNow(done.id);
  assert.ok(!(await exists(join(w.paths.historyPending, done.id))), "the pending mark went");
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(w.paths.history, { readOnly: true });
  try {
    const rows = db.prepare("SELECT returned_tokens AS returned FROM runs").all() as {
      returned: number;
    }[];
    assert.equal(rows.length, 1);
    assert.ok(rows[0]!.returned >= 1000, `the hand-over is counted: ${rows[0]!.returned} tokens`);
  } finally {
    db.close();
  }
});

Deno.test("a run without indexLater (the host's) is indexed when it ends", async () => {
  await using w = await world();
  const done = await w.engine.run(request);
  assert.equal(done.state, "done", done.message);
  assert.ok(!(await exists(join(w.paths.historyPending, done.id))));
  assert.ok(await exists(w.paths.history));
});
