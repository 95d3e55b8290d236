/**
 * End to end over real git: snapshot a dirty user tree, let a simulated worker edit it, diff,
 * revert, and check that the user's repository state and uncommitted work are untouched.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ChangedSinceError,
  diffSnapshots,
  findRepo,
  patchBetween,
  type RepoInfo,
  revert,
  snapshot,
  type StoreOptions,
} from "../../src/vcs/mod.ts";
import { type TempDir, tempDir, testSys, treeFingerprint } from "./_helpers.ts";
import { makeDirtyRepo, P, userRepoState, workerEdits } from "./_dirty_repo.ts";

interface Setup extends AsyncDisposable {
  tmp: TempDir;
  home: string;
  root: string;
  repo: RepoInfo;
  /** The store, and a throwaway index kept between the snapshots of one run. */
  store: StoreOptions & { indexFile: string };
  sys: ReturnType<typeof testSys>;
}

async function dirtySetup(): Promise<Setup> {
  const tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  await Deno.mkdir(home);
  await Deno.mkdir(root);
  const sys = testSys(home);
  await makeDirtyRepo(home, root);
  const repo = await findRepo(sys, root);
  assert.ok(repo !== null);
  const store = {
    objectsDir: join(tmp.path, "state", "repos", "k", "objects"),
    indexFile: join(tmp.path, "state", "runs", "r1", "snapshot.index"),
  };
  await Deno.mkdir(join(tmp.path, "state", "runs", "r1"), { recursive: true });
  return {
    tmp,
    home,
    root,
    repo,
    store,
    sys,
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

Deno.test("diffSnapshots() holds exactly the worker's edits on a dirty tree", async () => {
  await using s = await dirtySetup();
  const before = await snapshot(s.sys, s.repo, s.store);
  await workerEdits(s.root);
  const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
  const changes = await diffSnapshots(s.sys, s.repo, { ...s.store, before, after });
  const summary = changes.files.map((f) => [f.path, f.status, f.added, f.removed, f.binary]);
  assert.deepStrictEqual(
    summary.sort(),
    [
      [P.userModified, "modified", 1, 0, false],
      [P.binary, "modified", 0, 0, true],
      [P.workerEdited, "modified", 2, 1, false],
      [P.unicode, "modified", 1, 1, false],
      [P.workerAdded, "added", 1, 0, false],
      [P.privateFile, "modified", 1, 1, false],
      [P.deep, "deleted", 0, 1, false],
      [P.script, "modified", 0, 0, false],
    ].sort(),
  );
  const script = changes.files.find((f) => f.path === P.script);
  assert.deepStrictEqual([script?.oldMode, script?.newMode], ["100644", "100755"]);
  assert.equal(changes.added, 6);
  assert.equal(changes.removed, 4);
});

Deno.test("patchBetween() is a binary-safe patch with full blob ids", async () => {
  await using s = await dirtySetup();
  const before = await snapshot(s.sys, s.repo, s.store);
  await workerEdits(s.root);
  const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
  const patch = new TextDecoder().decode(
    await patchBetween(s.sys, s.repo, { ...s.store, before, after }),
  );
  assert.match(patch, /GIT binary patch/);
  assert.match(patch, /^index [0-9a-f]{40}\.\.[0-9a-f]{40}/m);
  assert.match(patch, /^old mode 100644\nnew mode 100755$/m);
  assert.match(patch, /^\+four \(worker\)$/m);
  assert.match(
    patch,
    /^diff --git a\/dir with space\/ünï 文件.txt b\/dir with space\/ünï 文件.txt$/m,
  );
  assert.doesNotMatch(patch, /worker\.log|untracked\.txt|staged by user/);
  const same = await patchBetween(s.sys, s.repo, { ...s.store, before, after: before });
  assert.equal(same.length, 0);
});

Deno.test("snapshot, diff and revert leave the user's index, HEAD, refs, stash and objects as they were", async () => {
  await using s = await dirtySetup();
  const state = await userRepoState(s.home, s.root);
  const before = await snapshot(s.sys, s.repo, s.store);
  await workerEdits(s.root);
  const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
  await diffSnapshots(s.sys, s.repo, { ...s.store, before, after });
  await patchBetween(s.sys, s.repo, { ...s.store, before, after });
  await revert(s.sys, s.repo, { ...s.store, before, after });
  assert.deepStrictEqual(await userRepoState(s.home, s.root), state);
  assert.equal(before.head, state.head.trim());
});

Deno.test("revert() restores the tree exactly and keeps the user's uncommitted work", async () => {
  await using s = await dirtySetup();
  const userTree = await treeFingerprint(s.root);
  const before = await snapshot(s.sys, s.repo, s.store);
  await workerEdits(s.root);
  const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
  const report = await revert(s.sys, s.repo, { ...s.store, before, after });

  assert.deepStrictEqual(report.removed, [P.workerAdded]);
  assert.deepStrictEqual(report.removedDirs.sort(), ["new", "new/feature"]);
  assert.equal(report.restored.length, 7);
  const now = await treeFingerprint(s.root);
  // The ignored file the worker wrote is outside the snapshot: revert leaves it.
  assert.ok(now.delete(P.workerIgnored));
  assert.deepStrictEqual(now, userTree);
  assert.equal((await snapshot(s.sys, s.repo, s.store)).tree, before.tree);
  // The user's own staged edit is still staged, the unstaged one still unstaged.
  const staged = await s.sys.runner.run(["git", "diff", "--cached", "--name-only"], {
    cwd: s.root,
    env: { ...s.sys.env.toObject(), GIT_OPTIONAL_LOCKS: "0" },
  });
  assert.equal(staged.stdout, `${P.staged}\n`);
});

Deno.test("revert() keeps a file's own permission bits and restores the executable bit", async () => {
  await using s = await dirtySetup();
  const before = await snapshot(s.sys, s.repo, s.store);
  await workerEdits(s.root);
  const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
  await revert(s.sys, s.repo, { ...s.store, before, after });
  assert.equal((await Deno.stat(join(s.root, P.privateFile))).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(join(s.root, P.script))).mode! & 0o111, 0);
});

Deno.test("revert() refuses, naming the files, when a file changed since the after snapshot", async () => {
  await using s = await dirtySetup();
  const before = await snapshot(s.sys, s.repo, s.store);
  await workerEdits(s.root);
  const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
  await Deno.writeTextFile(join(s.root, P.workerEdited), "edited again by the user\n");
  await Deno.writeTextFile(join(s.root, P.deep), "came back\n");
  const tree = await treeFingerprint(s.root);
  let caught: unknown;
  try {
    await revert(s.sys, s.repo, { ...s.store, before, after, runId: "20240101-000000-abcd" });
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof ChangedSinceError);
  assert.deepStrictEqual(caught.paths.sort(), [P.workerEdited, P.deep].sort());
  assert.equal(caught.exit, 3);
  assert.match(caught.message, /"c\.txt"/);
  assert.equal(
    caught.hint,
    "inspect the run's changes with `pitroom show 20240101-000000-abcd --patch`",
  );
  assert.deepStrictEqual(await treeFingerprint(s.root), tree);
});

Deno.test("revert() refuses when only the executable bit changed since", async () => {
  await using s = await dirtySetup();
  const before = await snapshot(s.sys, s.repo, s.store);
  await workerEdits(s.root);
  // Content too: a mode-only change put back by hand would be the state before, which is done.
  await Deno.writeTextFile(join(s.root, P.script), "echo more\n", { append: true });
  const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
  await Deno.chmod(join(s.root, P.script), 0o644);
  await assert.rejects(
    () => revert(s.sys, s.repo, { ...s.store, before, after }),
    (e: unknown) => e instanceof ChangedSinceError && e.paths.join() === P.script,
  );
});

Deno.test("snapshot() writes no object into the user's store but into Pitroom's", async () => {
  await using s = await dirtySetup();
  const objects = await s.sys.runner.run(["git", "count-objects"], {
    cwd: s.root,
    env: s.sys.env.toObject(),
  });
  await workerEdits(s.root);
  const snap = await snapshot(s.sys, s.repo, s.store);
  const again = await s.sys.runner.run(["git", "count-objects"], {
    cwd: s.root,
    env: s.sys.env.toObject(),
  });
  assert.equal(again.stdout, objects.stdout);
  const inUser = await s.sys.runner.run(["git", "cat-file", "-e", snap.tree], {
    cwd: s.root,
    env: s.sys.env.toObject(),
  });
  assert.notEqual(inUser.code, 0);
  const stored = [];
  for await (const entry of Deno.readDir(s.store.objectsDir)) stored.push(entry.name);
  assert.ok(stored.length > 0);
});

Deno.test("a worker's .gitignore edit neither exposes the user's ignored files nor hides untracked ones", async () => {
  await using s = await dirtySetup();
  const userTree = await treeFingerprint(s.root);
  const before = await snapshot(s.sys, s.repo, s.store);
  assert.deepStrictEqual(before.ignored, [P.ignored]);
  await Deno.writeTextFile(join(s.root, ".gitignore"), "notes/\n");
  await Deno.writeTextFile(join(s.root, "fresh.log"), "made by the worker\n");
  const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
  const changes = await diffSnapshots(s.sys, s.repo, { ...s.store, before, after });
  assert.deepStrictEqual(changes.files.map((f) => [f.path, f.status]), [
    [".gitignore", "modified"],
    ["fresh.log", "added"],
  ]);
  await revert(s.sys, s.repo, { ...s.store, before, after });
  assert.deepStrictEqual(await treeFingerprint(s.root), userTree);
});

Deno.test("a before snapshot does not continue from an index file left at its path", async () => {
  await using s = await dirtySetup();
  const fresh = await snapshot(s.sys, s.repo, { objectsDir: s.store.objectsDir });
  // An earlier run's index that tracks the (now ignored) build.log.
  await Deno.writeTextFile(join(s.root, ".gitignore"), "");
  const old = await snapshot(s.sys, s.repo, { objectsDir: s.store.objectsDir });
  await snapshot(s.sys, s.repo, { ...s.store, base: old });
  await Deno.writeTextFile(join(s.root, ".gitignore"), "*.log\n");
  const before = await snapshot(s.sys, s.repo, s.store);
  assert.equal(before.tree, fresh.tree);
});
