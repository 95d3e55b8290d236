/**
 * The snapshot before a read run shared by the read runs of one tree (vcs/shared_snapshot.ts):
 * runs asked for before a walk began share it (one `git status` for all), each continues from a
 * kept index of its own exactly as from its own snapshot's, and a run asked for after the walk
 * began takes its own (the shared one could have missed a change made before it was asked for).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepo, type Snapshot, snapshot } from "../../src/vcs/mod.ts";
import { snapshotAhead } from "../../src/vcs/snapshot.ts";
import { seedIndex, startWalk } from "../../src/vcs/walk_start.ts";
import { ensureStore } from "../../src/vcs/store.ts";
import { droppedIndex } from "../../src/vcs/quick_snapshot.ts";
import { exists } from "../../src/sys/fs.ts";
import type { GitSys } from "../../src/vcs/git.ts";
import { put, sh, tempDir, testSys } from "./_helpers.ts";
import { waitFor } from "../support/temp.ts";

async function world() {
  const tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  const state = join(tmp.path, "state");
  for (const dir of [home, root, state]) await Deno.mkdir(dir);
  const git = (...args: string[]) => sh(home, root, ...args);
  await git("init", "-q", "-b", "main");
  await put(root, "a.txt", "one\n");
  await put(root, "src/b.ts", "two\n");
  await put(root, ".gitignore", "*.log\n");
  await git("add", "-A");
  await git("commit", "-q", "-m", "base");
  // A dirty tree: an edit, a new file and an ignored one.
  await put(root, "src/b.ts", "user edit\n");
  await put(root, "notes.txt", "untracked\n");
  await put(root, "debug.log", "ignored\n");
  const base = testSys(home);
  const statuses: string[] = [];
  const sys: GitSys = {
    ...base,
    runner: {
      ...base.runner,
      run(argv, options) {
        if (argv.includes("status")) statuses.push(argv.join(" "));
        return base.runner.run(argv, options);
      },
    },
  };
  return { tmp, home, root, state, sys, statuses };
}

Deno.test("read runs asked for before a walk began share it; each keeps its own index", async () => {
  const w = await world();
  await using _ = w.tmp;
  const repo = (await findRepo(w.sys, w.root))!;
  const objectsDir = join(w.state, "objects");
  const now = 1000;
  const share = { asked: 1000, now: () => now };
  const runs = ["r1", "r2", "r3"].map((id) => join(w.state, id, "index"));
  for (const index of runs) await Deno.mkdir(join(index, ".."), { recursive: true });
  const before = await Promise.all(
    runs.map((indexFile) =>
      snapshot(w.sys, repo, { objectsDir, indexFile, keepOnDemand: true, share })
    ),
  );
  assert.equal(w.statuses.length, 1, "one git status for the three runs");
  const alone = await snapshot(w.sys, repo, { objectsDir: join(w.state, "alone"), quick: false });
  for (const b of before) {
    assert.equal(b.tree, alone.tree);
    assert.equal(b.head, alone.head);
    assert.deepEqual(b.ignored, alone.ignored);
  }
  // Each its own copy: one run's record cannot change another's.
  assert.notEqual(before[0], before[1]);
  assert.notEqual(before[0]!.ignored, before[1]!.ignored);
  // Not written until asked for.
  for (const index of runs) assert.equal(await exists(index), false);
  // A worker changes the tree; each run's snapshot after continues from its own kept index.
  await put(w.root, "a.txt", "worker\n");
  await put(w.root, "src/c.ts", "new\n");
  await Deno.remove(join(w.root, "notes.txt"));
  await put(w.root, "worker.log", "ignored by the base\n");
  const fresh = await snapshot(w.sys, repo, {
    objectsDir: join(w.state, "alone"),
    quick: false,
    base: alone,
  });
  const after = async (indexFile: string, base: Snapshot) =>
    (await snapshot(w.sys, repo, { objectsDir, indexFile, base, readHead: false })).tree;
  assert.equal(await after(runs[0]!, before[0]!), fresh.tree);
  assert.equal(await after(runs[2]!, before[2]!), fresh.tree);
  // One never asked for is never written, its seed gone.
  await droppedIndex(runs[1]!);
  assert.equal(await exists(runs[1]!), false);
  assert.equal(await exists(`${runs[1]!}.seed`), false);
});

Deno.test("a read run asked for after a walk began takes its own snapshot", async () => {
  const w = await world();
  await using _ = w.tmp;
  const repo = (await findRepo(w.sys, w.root))!;
  const objectsDir = join(w.state, "objects");
  const index = (id: string) => join(w.state, id, "index");
  for (const id of ["r1", "r2"]) await Deno.mkdir(join(w.state, id));
  // The first walk begins at 1000; the second run was asked for at 1001, after it began.
  const first = snapshot(w.sys, repo, {
    objectsDir,
    indexFile: index("r1"),
    keepOnDemand: true,
    share: { asked: 900, now: () => 1000 },
  });
  // The first walk under way before the second run asks: else the first run, asked for at 900,
  // could join a walk the second began at 1002 (allowed, and one walk in all).
  await waitFor(() => w.statuses.length === 1, { timeoutMs: 10_000, what: "the first walk" });
  const second = snapshot(w.sys, repo, {
    objectsDir,
    indexFile: index("r2"),
    keepOnDemand: true,
    share: { asked: 1001, now: () => 1002 },
  });
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.tree, b.tree);
  assert.equal(w.statuses.length, 2, "two walks");
  await droppedIndex(index("r1"));
  await droppedIndex(index("r2"));
});

Deno.test("a walk started ahead of its run holds its seat for the run asked before it, then goes", async () => {
  const w = await world();
  await using _ = w.tmp;
  const repo = (await findRepo(w.sys, w.root))!;
  const objectsDir = join(w.state, "objects");
  const scratch = join(w.state, "tmp");
  await Deno.mkdir(scratch);
  await ensureStore({ objectsDir });
  const ahead = async (since: number) => {
    const seed = join(scratch, `seed-${since}`);
    assert.ok(await seedIndex(repo.indexFile, seed));
    const started = startWalk(w.sys, repo, { objectsDir, seed });
    return { started, walk: snapshotAhead(w.sys, repo, { objectsDir, since, started }) };
  };
  let ended = false;
  const { started, walk } = await ahead(1000);
  walk.done.then(() => (ended = true));
  // The run, asked for at 1000, joins it (its own index kept from the walk's seed) once the
  // walk's git status, HEAD and settings are in, and the run's folder made: the walk waited.
  await Promise.all([started.status, started.head, started.config]);
  const run = join(w.state, "r1", "index");
  await Deno.mkdir(join(run, ".."));
  assert.equal(ended, false, "the walk waits for its run");
  const joined = await snapshot(w.sys, repo, {
    objectsDir,
    indexFile: run,
    keepOnDemand: true,
    share: { asked: 1000, now: () => 2000 },
  });
  await walk.done;
  assert.equal(w.statuses.length, 1, "the run joined the walk");
  assert.deepEqual([...Deno.readDirSync(scratch)], [], "the walk's seed went with it");
  const alone = await snapshot(w.sys, repo, { objectsDir: join(w.state, "alone"), quick: false });
  assert.equal(joined.tree, alone.tree);
  assert.equal(joined.head, alone.head);
  assert.deepEqual(joined.ignored, alone.ignored);
  // Its kept index continues as its own snapshot's would.
  await put(w.root, "a.txt", "worker\n");
  const fresh = await snapshot(w.sys, repo, {
    objectsDir: join(w.state, "alone"),
    quick: false,
    base: alone,
  });
  const after = await snapshot(w.sys, repo, {
    objectsDir,
    indexFile: run,
    base: joined,
    readHead: false,
  });
  assert.equal(after.tree, fresh.tree);
  assert.equal(w.statuses.length, 2, "the snapshot after walked once, over the kept seed");
  assert.ok(ended);

  // A walk no run joins (its run asked for after it began takes its own) waits to be let go.
  ended = false;
  const { started: second, walk: unjoined } = await ahead(3000);
  unjoined.done.then(() => (ended = true));
  await second.status;
  const later = join(w.state, "r2", "index");
  await Deno.mkdir(join(later, ".."));
  await snapshot(w.sys, repo, {
    objectsDir,
    indexFile: later,
    keepOnDemand: true,
    share: { asked: 3001, now: () => 3002 },
  });
  assert.equal(w.statuses.length, 4, "the later run took its own walk");
  assert.equal(ended, false, "the walk waits for its run or its release");
  unjoined.release();
  await unjoined.done;
  assert.deepEqual([...Deno.readDirSync(scratch)], []);
  await droppedIndex(later);
});
