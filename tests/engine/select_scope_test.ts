/**
 * `last`, parts of ids and groups mean the runs of the caller's repository (the `-d` folder's or
 * the working directory's); a run of another repository is reached only by its full id, and a
 * damaged record is named, never passed over for an older run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { loadCurrent, resolveRun } from "../../src/engine/select.ts";
import { scopeOf } from "../../src/engine/scope.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { createRunDir, writeRecord } from "../../src/store/runs.ts";
import { DamagedRecord, Exit } from "../../src/sys/errors.ts";
import { testSys } from "../support/sys.ts";
import { type TempDir, tempDir, tempRepo } from "../support/temp.ts";

/** A finished run's record, as a run of `repo` (or of a folder outside git) leaves it. */
function record(id: string, fields: Partial<RunRecord>): RunRecord {
  return {
    schemaVersion: 1,
    id,
    state: "done",
    mode: "write",
    task: `task ${id}`,
    cwd: "/nowhere",
    chain: [{ worker: "opencode" }],
    web: false,
    timeoutMs: 1000,
    createdAt: Number(id.slice(9, 15)),
    endedAt: Number(id.slice(9, 15)) + 1,
    attempts: [],
    progress: { steps: 0, tools: 0, tokens: { input: 0, output: 0, cached: 0, reasoning: 0 } },
    outcome: "ok",
    exit: 0,
    ...fields,
  };
}

/** Two repositories, a plain folder, and runs in each (the newest in `two`). */
async function world() {
  const state = await tempDir("pitroom-state-");
  const one = await tempRepo({ "a.txt": "a\n" });
  const two = await tempRepo({ "b.txt": "b\n" });
  const plain = await tempDir("pitroom-plain-");
  const oneRoot = await Deno.realPath(one.path);
  const twoRoot = await Deno.realPath(two.path);
  const plainDir = await Deno.realPath(plain.path);
  const paths = statePaths(state.path);
  const made = async (r: RunRecord) => {
    await createRunDir(paths, r.id);
    await writeRecord(paths, r);
  };
  await made(record("20261130-101500-3f2a", { repoRoot: oneRoot, cwd: oneRoot, group: "docs" }));
  await made(record("20261130-101501-3f2b", { repoRoot: oneRoot, cwd: oneRoot }));
  await made(record("20261130-101502-aaaa", { mode: "read", cwd: join(plainDir, "sub") }));
  await made(record("20261130-111111-bbbb", { repoRoot: twoRoot, cwd: twoRoot, group: "docs" }));
  const sysIn = (dir: string) => testSys({ stateDir: state.path, cwd: dir });
  return {
    paths,
    one: oneRoot,
    two: twoRoot,
    plain: plainDir,
    sysIn,
    async [Symbol.asyncDispose]() {
      for (const d of [state, one, two, plain] as TempDir[]) await d[Symbol.asyncDispose]();
    },
  };
}

Deno.test("`last` and a part of an id resolve among the runs of the caller's repository", async () => {
  await using w = await world();
  const sys = w.sysIn(join(w.one));
  const scope = await scopeOf(sys, ".");
  assert.equal(await resolveRun(sys, "last", scope), "20261130-101501-3f2b");
  assert.equal(await resolveRun(sys, "3f2a", scope), "20261130-101500-3f2a");
  await assert.rejects(resolveRun(sys, "20261130-1015", scope), /ambiguous: 2 runs match/);
  await assert.rejects(resolveRun(sys, "zzzz", scope), /No run "zzzz"/);
  // Another repository's run: named with its place, reached only by its full id.
  await assert.rejects(
    resolveRun(sys, "bbbb", scope),
    /No run "bbbb" in this repository .*: it names run "20261130-111111-bbbb" of ".*"/,
  );
  assert.equal(await resolveRun(sys, "20261130-111111-bbbb", scope), "20261130-111111-bbbb");
  // From the other repository (or a folder inside it), `last` is its run.
  const sub = join(w.two, "sub");
  await Deno.mkdir(sub);
  const twoSys = w.sysIn(sub);
  assert.equal(
    await resolveRun(twoSys, "last", await scopeOf(twoSys, ".")),
    "20261130-111111-bbbb",
  );
  // Outside git, the runs started in that folder or below.
  const plainSys = w.sysIn(w.plain);
  assert.equal(
    await resolveRun(plainSys, "last", await scopeOf(plainSys, ".")),
    "20261130-101502-aaaa",
  );
  // Every repository (null): the newest of all.
  assert.equal(await resolveRun(sys, "last", null), "20261130-111111-bbbb");
});

Deno.test("a repository without runs says so, and where the runs are", async () => {
  await using w = await world();
  await using empty = await tempRepo({ "c.txt": "c\n" });
  const sys = w.sysIn(empty.path);
  await assert.rejects(resolveRun(sys, "last", await scopeOf(sys, ".")), (error: Error) => {
    assert.match(error.message, /^No runs in this repository \(".*"\) yet$/);
    return true;
  });
});

Deno.test("without git to ask, no folder is a repository's and a full id needs no git", async () => {
  await using w = await world();
  const sys = testSys({ stateDir: w.paths.root, cwd: w.one, env: { PATH: "/nowhere" } });
  const scope = await scopeOf(sys, ".");
  assert.deepEqual([scope.repo, scope.root], [false, w.one]);
  // A full id is answered before anything asks git where the caller stands.
  assert.equal((await createEngine(sys).get("20261130-111111-bbbb")).id, "20261130-111111-bbbb");
});

Deno.test("resolveRun() answers a full id without listing the runs folder", async () => {
  await using w = await world();
  const sys = w.sysIn(w.one);
  const scope = await scopeOf(sys, ".");
  const readDirSync = Deno.readDirSync;
  let listings = 0;
  Object.assign(Deno, {
    readDirSync: (path: string | URL) => {
      listings++;
      return readDirSync(path);
    },
  });
  try {
    assert.equal(await resolveRun(sys, "20261130-111111-bbbb", scope), "20261130-111111-bbbb");
    assert.equal(listings, 0);
    // A full id that is not there, and a part of one, still look through the folder.
    await assert.rejects(resolveRun(sys, "20261130-101500-0000", scope), /No run/);
    assert.equal(await resolveRun(sys, "3f2a", scope), "20261130-101500-3f2a");
    assert.equal(listings, 2);
  } finally {
    Object.assign(Deno, { readDirSync });
  }
});

Deno.test("lists and groups are the repository's unless told every repository's", async () => {
  await using w = await world();
  const sys = w.sysIn(w.one);
  const engine = createEngine(sys);
  assert.deepEqual((await engine.list({ recent: 10 })).map((r) => r.id), [
    "20261130-101500-3f2a",
    "20261130-101501-3f2b",
  ]);
  assert.equal((await engine.list({ recent: 10, all: true })).length, 4);
  assert.deepEqual((await loadCurrent(sys, 1, null)).map((r) => r.id), ["20261130-111111-bbbb"]);
  assert.deepEqual((await engine.list({ group: "docs" })).map((r) => r.id), [
    "20261130-101500-3f2a",
  ]);
  assert.equal((await engine.list({ group: "docs", all: true })).length, 2);
  // A group whose runs are all elsewhere names where they are.
  const plain = createEngine(w.sysIn(w.plain));
  await assert.rejects(
    plain.list({ group: "docs" }),
    /No runs in group "docs" in this folder .*: its runs are in 2 other places/,
  );
  // `-d` stands in another repository.
  const there = createEngine(sys, { dir: w.two });
  assert.equal((await there.get("last")).id, "20261130-111111-bbbb");
  assert.equal((await there.scope()).root, w.two);
});

Deno.test("a damaged newest record stops `last` instead of passing over it for an older run", async () => {
  await using w = await world();
  const sys = w.sysIn(w.two);
  await Deno.writeTextFile(
    w.paths.run("20261130-111111-bbbb").record,
    '{"schemaVersion": 1, "id": "2026',
  );
  const engine = createEngine(sys);
  await assert.rejects(engine.get("last"), (error: unknown) => {
    assert.ok(error instanceof DamagedRecord);
    assert.equal(error.exit, Exit.damagedRecord);
    assert.equal(error.file, "run.json");
    assert.match(
      error.message,
      /^Run "20261130-111111-bbbb": run.json is damaged \(cut short or not JSON\)/,
    );
    return true;
  });
  // The other repository's `last` cannot tell the damaged run is not its own (no history copy).
  await assert.rejects(createEngine(w.sysIn(w.one)).get("last"), DamagedRecord);
  // The lists go on without it and tell of it.
  const told: string[] = [];
  const listed = await createEngine(w.sysIn(w.one)).list({
    recent: 10,
    all: true,
    onDamaged: (d) => told.push(d.message),
  });
  assert.equal(listed.length, 3);
  assert.equal(told.length, 1);
  assert.match(told[0]!, /run\.json is damaged/);
});
