/**
 * Repository layouts over real git: a sparse checkout (files outside the cone, untracked or made
 * by the worker) and submodules.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  diffSnapshots,
  findRepo,
  type RepoInfo,
  revert,
  snapshot,
  type StoreOptions,
  SubmodulesRefused,
} from "../../src/vcs/mod.ts";
import {
  gitDirFingerprint,
  put,
  sh,
  type TempDir,
  tempDir,
  testEnv,
  testSys,
  treeFingerprint,
} from "./_helpers.ts";
import { realRunner } from "../../src/sys/real.ts";

interface Setup extends AsyncDisposable {
  tmp: TempDir;
  home: string;
  root: string;
  sys: ReturnType<typeof testSys>;
  store: StoreOptions & { indexFile: string };
  open(): Promise<RepoInfo>;
}

async function setup(): Promise<Setup> {
  const tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  await Deno.mkdir(home);
  await Deno.mkdir(root);
  await sh(home, root, "init", "-q", "-b", "main");
  const sys = testSys(home);
  await Deno.mkdir(join(tmp.path, "state", "run"), { recursive: true });
  return {
    tmp,
    home,
    root,
    sys,
    store: {
      objectsDir: join(tmp.path, "state", "objects"),
      indexFile: join(tmp.path, "state", "run", "index"),
    },
    async open() {
      const repo = await findRepo(sys, root);
      assert.ok(repo !== null);
      return repo;
    },
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

Deno.test("a sparse checkout is snapshotted and reverted, files outside the cone included", async () => {
  await using s = await setup();
  await put(s.root, "d1/a.txt", "a\n");
  await put(s.root, "d2/b.txt", "b\n");
  await put(s.root, "top.txt", "top\n");
  await sh(s.home, s.root, "add", "-A");
  await sh(s.home, s.root, "commit", "-q", "-m", "base");
  await sh(s.home, s.root, "sparse-checkout", "set", "d1");
  // The user's untracked file outside the cone.
  await put(s.root, "d2/user.txt", "mine\n");
  const userTree = await treeFingerprint(s.root);
  const gitDir = await gitDirFingerprint(join(s.root, ".git"));
  const repo = await s.open();
  const before = await snapshot(s.sys, repo, s.store);
  await put(s.root, "d1/a.txt", "a (worker)\n");
  await put(s.root, "d2/new.txt", "worker\n");
  const after = await snapshot(s.sys, repo, { ...s.store, base: before });
  const changes = await diffSnapshots(s.sys, repo, { ...s.store, before, after });
  assert.deepStrictEqual(changes.files.map((f) => [f.path, f.status]), [
    ["d1/a.txt", "modified"],
    ["d2/new.txt", "added"],
  ]);
  await revert(s.sys, repo, { ...s.store, before, after });
  assert.deepStrictEqual(await treeFingerprint(s.root), userTree);
  assert.deepStrictEqual(await gitDirFingerprint(join(s.root, ".git")), gitDir);
});

Deno.test("the snapshot before a write or isolate run refuses initialised submodules and nested repositories, naming them", async () => {
  await using s = await setup();
  const upstream = join(s.tmp.path, "upstream");
  await Deno.mkdir(upstream);
  await sh(s.home, upstream, "init", "-q", "-b", "main");
  await put(upstream, "lib.txt", "lib\n");
  await sh(s.home, upstream, "add", "-A");
  await sh(s.home, upstream, "commit", "-q", "-m", "lib");
  await put(s.root, "a.txt", "a\n");
  await sh(s.home, s.root, "add", "-A");
  await sh(s.home, s.root, "commit", "-q", "-m", "base");
  await sh(
    s.home,
    s.root,
    "-c",
    "protocol.file.allow=always",
    "submodule",
    "add",
    "-q",
    upstream,
    "sub",
  );
  await sh(s.home, s.root, "commit", "-q", "-m", "sub");
  const repo = await s.open();
  await assert.rejects(
    () => snapshot(s.sys, repo, { ...s.store, submodules: "refuse" }),
    (error: Error) => error instanceof SubmodulesRefused && /"sub"/.test(error.message),
  );
  // A read run may still snapshot (it records each submodule's commit).
  await snapshot(s.sys, repo, s.store);

  await using t = await setup();
  await put(t.root, "a.txt", "a\n");
  await sh(t.home, t.root, "add", "-A");
  await sh(t.home, t.root, "commit", "-q", "-m", "base");
  await Deno.mkdir(join(t.root, "nested"));
  await sh(t.home, join(t.root, "nested"), "init", "-q");
  await put(t.root, "nested/x.txt", "x\n");
  await sh(t.home, join(t.root, "nested"), "add", "-A");
  await sh(t.home, join(t.root, "nested"), "commit", "-q", "-m", "x");
  await assert.rejects(
    async () => snapshot(t.sys, await t.open(), { ...t.store, submodules: "refuse" }),
    (error: Error) => error instanceof SubmodulesRefused && /"nested"/.test(error.message),
  );
});

Deno.test("nested repositories with no commit yet: a write run's snapshot refuses them, naming each; a read run's and the one after a worker leave them out", async () => {
  await using t = await setup();
  await put(t.root, "a.txt", "a\n");
  await sh(t.home, t.root, "add", "-A");
  await sh(t.home, t.root, "commit", "-q", "-m", "base");
  for (const folder of ["one", "deep/two"]) {
    await Deno.mkdir(join(t.root, folder), { recursive: true });
    await sh(t.home, join(t.root, folder), "init", "-q");
    await put(t.root, `${folder}/x.txt`, "x\n");
  }
  await put(t.root, "deep/plain.txt", "p\n");
  const repo = await t.open();
  for (const quick of [true, false]) {
    await assert.rejects(
      () => snapshot(t.sys, repo, { objectsDir: t.store.objectsDir, submodules: "refuse", quick }),
      (error: Error) =>
        error instanceof SubmodulesRefused && /"one"/.test(error.message) &&
        /"deep\/two"/.test(error.message),
    );
  }
  const read = await snapshot(t.sys, repo, { objectsDir: t.store.objectsDir });
  const full = await snapshot(t.sys, repo, { objectsDir: t.store.objectsDir, quick: false });
  assert.equal(read.tree, full.tree);
  const paths = async (tree: string) => {
    const out = await realRunner.run(["git", "ls-tree", "-r", "--name-only", tree], {
      cwd: t.root,
      env: {
        ...testEnv(t.home),
        GIT_OBJECT_DIRECTORY: t.store.objectsDir,
        GIT_ALTERNATE_OBJECT_DIRECTORIES: repo.objectsDir,
      },
    });
    assert.equal(out.code, 0, out.stderr);
    return out.stdout.trim().split("\n");
  };
  assert.deepEqual(await paths(read.tree), ["a.txt", "deep/plain.txt"]);
  // The snapshot after a worker that made one more: left out too; its other work is there.
  await Deno.mkdir(join(t.root, "three"));
  await sh(t.home, join(t.root, "three"), "init", "-q");
  await put(t.root, "b.txt", "b\n");
  const after = await snapshot(t.sys, repo, { ...t.store, base: read, readHead: false });
  assert.deepEqual(await paths(after.tree), ["a.txt", "b.txt", "deep/plain.txt"]);
});
