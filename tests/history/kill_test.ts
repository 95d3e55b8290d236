/**
 * kill -9 while runs are being written to the history. A run whose indexing was cut is not lost
 * from the history: the next command that reads it indexes the run (its pending mark is written
 * before the write, not only when a write fails). Kills at any moment of a stream of writes
 * leave the database whole: integrity and full-text checks pass, and no run is half written.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { statePaths } from "../../src/store/paths.ts";
import { withHistory } from "../../src/store/history/ready.ts";
import { exists } from "../../src/sys/fs.ts";
import { testSys } from "../support/sys.ts";
import { pitroomArgv } from "../support/pitroom.ts";
import { tempDir, waitFor } from "../support/temp.ts";
import { writeFakeRun } from "./_fixtures.ts";

const HELPER = new URL("./_index_runs.ts", import.meta.url).pathname;

/** Starts the helper that indexes `ids` one by one through the lifecycle's hook. */
async function indexer(stateDir: string, ids: string[]) {
  const start = join(stateDir, "start");
  await Deno.writeTextFile(start, "go");
  const argv = pitroomArgv().slice(0, -1);
  return new Deno.Command(argv[0]!, {
    args: [...argv.slice(1), HELPER, stateDir, start, ...ids],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

function runsIn(path: string): number {
  try {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      return (db.prepare("SELECT COUNT(*) AS n FROM runs").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

Deno.test("kill -9 while a run is being indexed: the next history read indexes it", async () => {
  await using state = await tempDir("pitroom-history-kill-");
  const first = await writeFakeRun(state.path, { task: "first", answer: "one", endedAt: 1 });
  const cut = await writeFakeRun(state.path, { task: "cut", answer: "two", endedAt: 2 });
  const paths = statePaths(state.path);
  // Its patch is a named pipe: reading it holds the indexer inside the run's indexing.
  const fifo = paths.run(cut.id).patch;
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.equal(made.code, 0);
  const child = await indexer(state.path, [first.id, cut.id]);
  await waitFor(() => runsIn(paths.history) === 1, { timeoutMs: 60_000, what: "the first run" });
  // The second run is marked pending before its write begins; the indexer then waits on the pipe.
  await waitFor(() => exists(join(paths.historyPending, cut.id)), {
    timeoutMs: 30_000,
    what: "the cut run's pending mark",
  });
  child.kill("SIGKILL");
  await child.output();
  await Deno.remove(fifo);
  await Deno.writeTextFile(fifo, "diff --git a/x b/x\n");
  const sys = testSys({ stateDir: state.path });
  const ids = await withHistory(
    sys,
    (db) =>
      Promise.resolve(
        (db.prepare("SELECT id FROM runs").all() as { id: string }[]).map((r) => r.id),
      ),
  );
  assert.deepEqual(ids.sort(), [first.id, cut.id].sort());
});

Deno.test("kill -9 at any moment of a stream of history writes leaves no run half written", async () => {
  await using state = await tempDir("pitroom-history-kill-");
  const ids: string[] = [];
  const patch = "diff --git a/f b/f\n" + "+added line\n".repeat(20_000);
  for (let i = 0; i < 30; i++) {
    const record = await writeFakeRun(state.path, {
      task: `task ${i}`,
      answer: `answer ${i}`,
      endedAt: Date.now() - i * 60_000,
      tools: Array.from({ length: 100 }, (_, k) => ({ kind: "read", target: `file${k}.ts` })),
      patch,
    });
    ids.push(record.id);
  }
  const paths = statePaths(state.path);
  const child = await indexer(state.path, ids);
  await waitFor(() => runsIn(paths.history) >= 3, { timeoutMs: 60_000, what: "a few runs" });
  child.kill("SIGKILL");
  await child.output();
  const written = runsIn(paths.history);
  assert.ok(written < ids.length, "the indexer ended before the kill");
  const db = new DatabaseSync(paths.history);
  try {
    db.exec("INSERT INTO runs_fts (runs_fts) VALUES ('integrity-check')");
    const check = db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
    assert.deepEqual(check.map((r) => r.integrity_check), ["ok"]);
    // Every run written is written whole: its steps and its diff with it.
    const half = db.prepare(
      `SELECT r.id FROM runs r WHERE (SELECT COUNT(*) FROM steps s WHERE s.run_n = r.n) != 100
         OR (SELECT COUNT(*) FROM diffs d WHERE d.run_n = r.n) != 1`,
    ).all();
    assert.deepEqual(half, []);
  } finally {
    db.close();
  }
  // The rest is indexed by an import: nothing was lost.
  const sys = testSys({ stateDir: state.path });
  const { importRuns } = await import("../../src/store/history/import.ts");
  const { openHistory } = await import("../../src/store/history/db.ts");
  const { history } = await openHistory(sys);
  try {
    await importRuns(sys, history.db);
  } finally {
    history.close();
  }
  assert.equal(runsIn(paths.history), ids.length);
});
