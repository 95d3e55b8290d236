import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { statePaths } from "../../src/store/paths.ts";
import { pitroomArgv } from "../support/pitroom.ts";
import { tempDir, waitFor } from "../support/temp.ts";
import { writeFakeRun } from "./_fixtures.ts";

const HELPER = new URL("./_index_runs.ts", import.meta.url).pathname;

Deno.test("four processes indexing into a new history at the same time lose nothing", async () => {
  await using state = await tempDir("pitroom-concurrent-");
  const ids: string[] = [];
  for (let i = 0; i < 60; i++) {
    const record = await writeFakeRun(
      state.path,
      {
        task: `task number ${i}`,
        answer: `answer ${i}`,
        endedAt: Date.now() - i * 60_000,
        tools: [{ kind: "read", target: `file${i}.ts` }],
        ...(i % 3 === 0 ? { patch: `diff ${i}\n` } : {}),
      },
    );
    ids.push(record.id);
  }
  const start = join(state.path, "start");
  // Each indexes every run, two in each order: creation, WAL, migration and the same rows race.
  const argv = pitroomArgv().slice(0, -1);
  const children = [ids, [...ids].reverse(), ids, [...ids].reverse()].map((order) =>
    new Deno.Command(argv[0]!, {
      args: [...argv.slice(1), HELPER, state.path, start, ...order],
      stdout: "piped",
      stderr: "piped",
    }).spawn()
  );
  await waitFor(
    () =>
      [...Deno.readDirSync(state.path)].filter((e) => e.name.startsWith("start.ready.")).length ===
        children.length,
    { timeoutMs: 20_000, what: "every indexer ready" },
  );
  await Deno.writeTextFile(start, "go");
  const outputs = await Promise.all(children.map((c) => c.output()));
  for (const out of outputs) {
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(new TextDecoder().decode(out.stdout).trim(), "60");
  }
  const paths = statePaths(state.path);
  // indexRun never throws; a failure would be in the history log.
  await assert.rejects(Deno.stat(join(paths.logs, "history.log")), Deno.errors.NotFound);
  const db = new DatabaseSync(paths.history);
  try {
    db.exec("INSERT INTO runs_fts (runs_fts) VALUES ('integrity-check')");
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    assert.equal(count("SELECT COUNT(*) AS n FROM runs"), 60);
    assert.equal(count("SELECT COUNT(*) AS n FROM steps"), 60);
    assert.equal(count("SELECT COUNT(*) AS n FROM diffs"), 20);
    assert.equal(count("SELECT COUNT(*) AS n FROM runs_fts WHERE runs_fts MATCH 'answer'"), 60);
    assert.equal(
      (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode,
      "wal",
    );
  } finally {
    db.close();
  }
});
