/**
 * A foreground run leaves its history row to the next command that reads the history (the CLI's
 * process ends once its report is out, without opening SQLite): the run is marked pending, a
 * hand-over of it opens no database either, and the next read indexes it with what was handed
 * over. A run of the host (no `indexLater`) is indexed when it ends, as before.
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
