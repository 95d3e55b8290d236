/**
 * A foreground read run's snapshot walk, started as the run is asked for (engine/run/ahead.ts):
 * its `git status` runs before the run's record exists, the run joins it, a run that waits for a
 * slot takes its own snapshot once it starts (an edit made while it waited is in it), and a
 * request refused after the walk started ends the walk after its `git status`: nothing hashed,
 * nothing left in scratch space (a 10 GiB untracked file once kept such a refusal for minutes).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { UsageError } from "../../src/sys/errors.ts";
import type { Runner } from "../../src/sys/mod.ts";
import { findRepo, snapshot } from "../../src/vcs/mod.ts";
import { engineWorld } from "../support/engine_world.ts";
import { fakeBackend } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { git, tempDir, tempRepo, waitFor } from "../support/temp.ts";

/** Every file left under the state's repositories' scratch folders (`repos/*\/tmp`), now. */
function scratchLeft(stateDir: string): string[] {
  const left: string[] = [];
  const list = (dir: string) => {
    try {
      return [...Deno.readDirSync(dir)].map((entry) => entry.name);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw error;
    }
  };
  const repos = join(stateDir, "repos");
  for (const repo of list(repos)) {
    for (const name of list(join(repos, repo, "tmp"))) left.push(join(repo, "tmp", name));
  }
  return left;
}

Deno.test("a foreground read run's git status starts before its record is written, and the run joins it", async () => {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await Deno.writeTextFile(join(repo.path, "new.txt"), "untracked\n");
  const base = testSys({ stateDir: state.path, cwd: repo.path });
  const statuses: { runsThen: number }[] = [];
  const runsDir = join(state.path, "runs");
  const runner: Runner = {
    ...base.runner,
    run(argv, options) {
      if (argv.includes("status")) {
        let runs = 0;
        try {
          for (const _ of Deno.readDirSync(runsDir)) runs++;
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
        statuses.push({ runsThen: runs });
      }
      return base.runner.run(argv, options);
    },
  };
  const sys = { ...base, runner };
  const backend = fakeBackend(() => [{ answer: "Done" }]);
  const engine = createEngine(sys, { backends: () => backend });
  const done = await engine.run({ task: "look", worker: "opencode", timeoutMs: 30_000 });
  assert.equal(done.outcome, "ok");
  assert.deepEqual(statuses, [{ runsThen: 0 }], "one git status, before any run folder");
  assert.deepEqual(scratchLeft(state.path), []);
});

Deno.test("a read run that waits for a slot snapshots the tree as it is when it starts", async () => {
  await using gate = await tempDir();
  const first = join(gate.path, "first");
  const second = join(gate.path, "second");
  let launches = 0;
  await using t = await engineWorld(
    await tempRepo({ "a.txt": "one\n" }),
    () => {
      launches++;
      return launches === 1
        ? [{ waitFile: first }, { answer: "first" }]
        : [{ waitFile: second }, { answer: "second" }];
    },
    { config: { maxParallel: 1 } },
  );
  const run = () =>
    t.engine.run({ task: "look", mode: "read", worker: "opencode", timeoutMs: 30_000 });
  const a = run();
  await waitFor(() => launches === 1, { timeoutMs: 10_000, what: "the first worker" });
  const firstId = (await t.engine.list())[0]!.id;
  const b = run();
  await waitFor(async () => (await t.engine.list()).some((r) => r.state === "queued"), {
    timeoutMs: 10_000,
    what: "the second run to queue",
  });
  // The second run was asked for (and its walk ahead taken) before this edit.
  await Deno.writeTextFile(join(t.repo.path, "while-queued.txt"), "made while it waited\n");
  await Deno.writeTextFile(first, "");
  await waitFor(() => launches === 2, { timeoutMs: 10_000, what: "the second worker" });
  const queued = (await t.engine.list()).find((r) => r.id !== firstId)!;
  const record = await t.sys.state.runs.load(queued.id);
  const repo = (await findRepo(t.sys, t.repo.path))!;
  const now = await snapshot(t.sys, repo, {
    objectsDir: join(t.paths.root, "oracle-objects"),
    quick: false,
  });
  assert.equal(record.changes?.before.tree, now.tree, "the snapshot of the tree it started on");
  await Deno.writeTextFile(second, "");
  const [ra, rb] = await Promise.all([a, b]);
  assert.equal(ra.answer, "first");
  assert.equal(rb.answer, "second");
  assert.deepEqual(scratchLeft(t.paths.root), []);
});

Deno.test("a read run refused after its walk started leaves nothing in scratch space, and hashed nothing", async () => {
  await using t = await engineWorld(await tempRepo({ "a.txt": "one\n" }), () => [
    { answer: "never" },
  ]);
  // An untracked file: a snapshot would hash it into Pitroom's store (a 10 GiB one took minutes).
  await Deno.writeTextFile(join(t.repo.path, "new.txt"), "untracked\n");
  await assert.rejects(
    t.engine.run({ task: "look", mode: "read", worker: "no-such-worker", timeoutMs: 30_000 }),
    UsageError,
  );
  // Looked at before anything else runs: the walk is over when the refusal is thrown.
  assert.deepEqual(scratchLeft(t.paths.root), []);
  assert.deepEqual(await t.engine.list(), []);
  // The walk did start (its store is there); it was let go after its git status, before it
  // hashed a file: the store holds no object.
  const repos = [...Deno.readDirSync(join(t.paths.root, "repos"))];
  assert.equal(repos.length, 1);
  const objects = join(t.paths.root, "repos", repos[0]!.name, "objects");
  const stored = [...Deno.readDirSync(objects)].filter((e) =>
    e.name !== "info" && e.name !== "pack"
  );
  assert.deepEqual(stored.map((e) => e.name), [], "objects written by the walk");
});

/** A test sys in `cwd` whose runner notes each `git status` with the work tree it walked. */
function statusNoting(stateDir: string, cwd: string) {
  const base = testSys({ stateDir, cwd });
  const walked: string[] = [];
  const runner: Runner = {
    ...base.runner,
    run(argv, options) {
      if (argv.includes("status")) walked.push(options?.env?.GIT_WORK_TREE ?? "?");
      return base.runner.run(argv, options);
    },
  };
  return { sys: { ...base, runner }, walked };
}

Deno.test("a read run started in a subfolder walks its repository's root, and joins the walk", async () => {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n", "sub/b.txt": "two\n" });
  const { sys, walked } = statusNoting(state.path, join(repo.path, "sub"));
  const engine = createEngine(sys, { backends: () => fakeBackend(() => [{ answer: "Done" }]) });
  const done = await engine.run({ task: "look", worker: "opencode", timeoutMs: 30_000 });
  assert.equal(done.outcome, "ok");
  assert.deepEqual(walked, [await Deno.realPath(repo.path)]);
  assert.deepEqual(scratchLeft(state.path), []);
});

Deno.test("a read run in a repository whose work tree is elsewhere (core.worktree) walks that work tree once", async () => {
  await using state = await tempDir("pitroom-state-");
  await using outer = await tempDir();
  const [gitHome, tree] = [join(outer.path, "home"), join(outer.path, "tree")];
  await Deno.mkdir(tree);
  await Deno.writeTextFile(join(tree, "a.txt"), "one\n");
  await git(outer.path, "init", "-q", "-b", "main", gitHome);
  await git(gitHome, "config", "core.worktree", tree);
  await git(gitHome, "add", "-A");
  await git(gitHome, "commit", "-q", "-m", "init");
  const { sys, walked } = statusNoting(state.path, gitHome);
  const engine = createEngine(sys, { backends: () => fakeBackend(() => [{ answer: "Done" }]) });
  const done = await engine.run({ task: "look", worker: "opencode", timeoutMs: 30_000 });
  assert.equal(done.outcome, "ok");
  assert.deepEqual(walked, [join(await Deno.realPath(outer.path), "tree")]);
  assert.deepEqual(scratchLeft(state.path), []);
});

Deno.test("a foreground write run's watch, then its git status, start before its record is written, and the run takes both", async () => {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n", "src/b.txt": "two\n" });
  await Deno.writeTextFile(join(repo.path, "new.txt"), "untracked\n");
  const base = testSys({ stateDir: state.path, cwd: repo.path });
  const calls: { call: string; runsThen: number }[] = [];
  const runsDir = join(state.path, "runs");
  const runner: Runner = {
    ...base.runner,
    run(argv, options) {
      const call = argv.includes("status") ? "status" : argv.includes("ls-tree") ? "ls-tree" : "";
      if (call !== "") {
        let runs = 0;
        try {
          for (const _ of Deno.readDirSync(runsDir)) runs++;
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
        calls.push({ call, runsThen: runs });
      }
      return base.runner.run(argv, options);
    },
  };
  const sys = { ...base, runner };
  const backend = fakeBackend(() => [{ answer: "Done" }]);
  const engine = createEngine(sys, { backends: () => backend });
  const done = await engine.run({
    task: "change nothing",
    mode: "write",
    worker: "opencode",
    timeoutMs: 30_000,
  });
  assert.equal(done.outcome, "ok");
  // The watch's folders, then the walk, before any run folder; the snapshot after's own walk.
  assert.deepEqual(calls, [
    { call: "ls-tree", runsThen: 0 },
    { call: "status", runsThen: 0 },
    { call: "status", runsThen: 1 },
  ]);
  // The run took the watch: its versions file holds the folders watched before its record was.
  const record = await sys.state.runs.load(done.id);
  const lines = (await Deno.readTextFile(sys.state.paths.run(done.id).versions)).split("\n")
    .filter((line) => line !== "").map((line) => JSON.parse(line));
  const first = lines[0] as { t: string; at: number; d: string[] };
  assert.equal(first.t, "dirs");
  assert.deepEqual(first.d.sort(), ["", "src"]);
  assert.ok(first.at <= record.startedAt!, "watched from before the run started");
  assert.equal(lines.at(-1).t, "end");
  assert.deepEqual(scratchLeft(state.path), []);
});

Deno.test("a write run refused after its watch started leaves no watch running and nothing in scratch space", async () => {
  // The test's resource check fails on a watch left open.
  await using t = await engineWorld(await tempRepo({ "a.txt": "one\n" }), () => [
    { answer: "never" },
  ]);
  await Deno.writeTextFile(join(t.repo.path, "new.txt"), "untracked\n");
  await assert.rejects(
    t.engine.run({ task: "edit", mode: "write", worker: "no-such-worker", timeoutMs: 30_000 }),
    UsageError,
  );
  assert.deepEqual(scratchLeft(t.paths.root), []);
  assert.deepEqual(await t.engine.list(), []);
});

Deno.test("a write run that waits for a slot watches and snapshots the tree from when it starts", async () => {
  await using gate = await tempDir();
  const first = join(gate.path, "first");
  let launches = 0;
  await using t = await engineWorld(
    await tempRepo({ "a.txt": "one\n" }),
    () => {
      launches++;
      return launches === 1 ? [{ waitFile: first }, { answer: "first" }] : [{ answer: "second" }];
    },
    { config: { maxParallel: 1 } },
  );
  const a = t.engine.run({ task: "look", mode: "read", worker: "opencode", timeoutMs: 30_000 });
  await waitFor(() => launches === 1, { timeoutMs: 10_000, what: "the first worker" });
  const b = t.engine.run({ task: "edit", mode: "write", worker: "opencode", timeoutMs: 30_000 });
  await waitFor(async () => (await t.engine.list()).some((r) => r.state === "queued"), {
    timeoutMs: 10_000,
    what: "the write run to queue",
  });
  await Deno.writeTextFile(join(t.repo.path, "while-queued.txt"), "made while it waited\n");
  await Deno.writeTextFile(first, "");
  const [, rb] = await Promise.all([a, b]);
  assert.equal(rb.answer, "second");
  const record = await t.sys.state.runs.load(rb.id);
  const repo = (await findRepo(t.sys, t.repo.path))!;
  const now = await snapshot(t.sys, repo, {
    objectsDir: join(t.paths.root, "oracle-objects"),
    quick: false,
  });
  assert.equal(record.changes?.before.tree, now.tree, "the snapshot of the tree it started on");
  // Its own watch, from when it started: after its wait, not from when it was asked for.
  const versions = (await Deno.readTextFile(t.sys.state.paths.run(rb.id).versions)).split("\n")
    .filter((line) => line !== "").map((line) => JSON.parse(line));
  assert.ok(versions[0].at >= record.startedAt!, "watched from the run's start");
  assert.deepEqual(scratchLeft(t.paths.root), []);
});
