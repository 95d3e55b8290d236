import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createEngine } from "../../src/engine/mod.ts";
import { withHistory } from "../../src/store/history/ready.ts";
import { searchRuns } from "../../src/engine/history/search.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

type Script = (spec: RunSpec) => FakeStep[];

const RUNS: { task: string; mode: "read" | "write"; group?: string; script: Script }[] = [
  {
    task: "Where is the retry policy defined?",
    mode: "read",
    script: () => [{ tool: "read", target: "a.txt" }, { answer: "The retry policy is in a.txt" }],
  },
  {
    task: "Append a line to a.txt",
    mode: "write",
    group: "edits",
    script: () => [
      { tool: "edit", target: "a.txt" },
      { writeFile: "a.txt", content: "one\ntwo\n" },
      { answer: "Appended two" },
    ],
  },
  {
    task: "Use the quota-limited model",
    mode: "read",
    script: () => [{ tool: "shell", target: "ls -la" }, { fail: "quota" }],
  },
  {
    task: "Crash halfway",
    mode: "read",
    script: () => [{ tool: "shell", target: "grep needle" }, { exit: 3 }],
  },
];

/** Makes real runs through the engine's door; each is indexed as it finishes. */
async function engineRuns() {
  const state = await tempDir("pitroom-import-");
  const repo = await tempRepo({ "a.txt": "one\n" });
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  let script: Script = () => [];
  const backend = fakeBackend((spec) => script(spec));
  const engine = createEngine(sys, { backends: () => backend });
  for (const run of RUNS) {
    script = run.script;
    await engine.run({
      task: run.task,
      mode: run.mode,
      worker: "opencode:big-pickle",
      timeoutMs: 30_000,
      ...(run.group ? { group: run.group } : {}),
    });
  }
  return {
    sys,
    state: state.path,
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

/** Every row of every table, in a stable order; fails when the full-text index is inconsistent. */
function dump(path: string): Record<string, unknown[]> {
  const db = new DatabaseSync(path);
  try {
    db.exec("INSERT INTO runs_fts (runs_fts) VALUES ('integrity-check')");
    const all = (sql: string) => db.prepare(sql).all().map((r) => ({ ...r }));
    return {
      runs: all("SELECT * FROM runs ORDER BY n"),
      docs: all("SELECT * FROM run_docs ORDER BY n"),
      attempts: all("SELECT * FROM attempts ORDER BY run_n, seq"),
      steps: all("SELECT * FROM steps ORDER BY run_n, seq"),
      diffs: all("SELECT * FROM diffs ORDER BY run_n"),
      matches: all(
        "SELECT rowid FROM runs_fts WHERE runs_fts MATCH 'retry OR needle OR appended' ORDER BY rowid",
      ),
    };
  } finally {
    db.close();
  }
}

async function removeDb(path: string): Promise<void> {
  for (const suffix of ["", "-wal", "-shm"]) {
    await Deno.remove(path + suffix).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
  }
}

Deno.test("import from the run folders gives the same rows as live indexing, and again on a second import", async () => {
  await using t = await engineRuns();
  const path = statePaths(t.state).history;
  const live = dump(path);
  assert.equal(live.runs!.length, RUNS.length);
  assert.equal(live.diffs!.length, 1);
  assert.ok(live.steps!.length >= RUNS.length);
  assert.equal(live.matches!.length, 3);
  // Runs started in the same second sort by their random hex, so compare as sets.
  const outcomes = live.runs!.map((r) => (r as { outcome: string }).outcome).sort();
  assert.deepEqual(outcomes, ["failed", "ok", "ok", "quota"]);

  await removeDb(path);
  const first = await withHistory(t.sys, (_db, prep) => prep.imported);
  assert.equal(first?.indexed, RUNS.length);
  assert.deepEqual(dump(path), live);

  const { importRuns } = await import("../../src/store/history/import.ts");
  await withHistory(t.sys, (db) => importRuns(t.sys, db));
  assert.deepEqual(dump(path), live);
});

Deno.test("a database that is not SQLite is moved aside and rebuilt from the run folders", async () => {
  await using t = await engineRuns();
  const path = statePaths(t.state).history;
  const live = dump(path);
  await removeDb(path);
  await Deno.writeTextFile(path, "this is not a database ".repeat(200));
  const prep = await withHistory(t.sys, (_db, prep) => prep);
  assert.ok(prep.movedAside?.startsWith(`${path}.damaged-`));
  assert.match(await Deno.readTextFile(prep.movedAside!), /^this is not a database/);
  assert.equal(prep.imported?.indexed, RUNS.length);
  assert.deepEqual(dump(path), live);
});

Deno.test("a database damaged inside is found on use, moved aside and rebuilt; the search still answers", async () => {
  await using t = await engineRuns();
  const path = statePaths(t.state).history;
  const live = dump(path);
  const db = new DatabaseSync(path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  // Keep the header page (the file still opens), overwrite every page after it.
  const bytes = await Deno.readFile(path);
  bytes.fill(0xa5, 4096);
  await Deno.writeFile(path, bytes);

  const hits = await withHistory(t.sys, (db) => searchRuns(db, { text: "retry" }));
  assert.deepEqual(hits.map((h) => h.task), ["Where is the retry policy defined?"]);
  const aside = [...Deno.readDirSync(t.state)].filter((e) =>
    e.name.startsWith("history.db.damaged-")
  );
  assert.equal(aside.length, 1);
  assert.deepEqual(dump(path), live);
});

Deno.test("a run whose compressed events file is cut short keeps the steps read before the cut, live or imported", async () => {
  const { writeFakeRun } = await import("./_fixtures.ts");
  const { indexRun } = await import("../../src/store/history/mod.ts");
  await using state = await tempDir("pitroom-truncated-");
  const sys = testSys({ stateDir: state.path });
  const record = await writeFakeRun(state.path, {
    task: "truncated events",
    endedAt: Date.now(),
    tools: [{ kind: "read", target: "a.txt" }],
  });
  const gz = statePaths(state.path).run(record.id).eventsGz;
  const bytes = await Deno.readFile(gz);
  await Deno.writeFile(gz, bytes.subarray(0, bytes.length - 12));
  await indexRun(sys, record);
  const path = statePaths(state.path).history;
  const live = dump(path);
  assert.equal(live.runs!.length, 1);
  assert.equal(live.steps!.length, 1);
  await removeDb(path);
  // A rebuild reads the file the slow way where node:zlib refuses it: the same steps.
  await withHistory(sys, () => undefined);
  assert.deepEqual(dump(path), live);
});

Deno.test("a version 1 database is upgraded to the current schema and filled again from the folders", async () => {
  const { SCHEMA_VERSION } = await import("../../src/store/history/schema.ts");
  await using t = await engineRuns();
  const path = statePaths(t.state).history;
  const live = dump(path);
  await removeDb(path);
  const old = new DatabaseSync(path);
  old.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    INSERT INTO meta VALUES ('imported_at', '1');
    CREATE TABLE runs (n INTEGER PRIMARY KEY, id TEXT, task TEXT, record TEXT);
    PRAGMA user_version = 1;`);
  old.close();
  const prep = await withHistory(t.sys, (db, prep) => {
    const version = db.prepare("PRAGMA user_version").get() as { user_version: number };
    assert.equal(version.user_version, SCHEMA_VERSION);
    return prep;
  });
  assert.equal(prep.imported?.indexed, RUNS.length);
  assert.deepEqual(dump(path), live);
});
