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
  testSys,
  treeFingerprint,
} from "./_helpers.ts";

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
