/**
 * Edge cases over real git: no commits yet, empty directories, a file that becomes a directory,
 * symlinks, line-ending conversion, a split index, a read run undone, and the patch round trip.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  diffSnapshots,
  findRepo,
  patchBetween,
  type RepoInfo,
  revert,
  snapshot,
  type StoreOptions,
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

interface Repo extends AsyncDisposable {
  tmp: TempDir;
  home: string;
  root: string;
  sys: ReturnType<typeof testSys>;
  store: StoreOptions;
  open(): Promise<RepoInfo>;
}

async function newRepo(): Promise<Repo> {
  const tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  await Deno.mkdir(home);
  await Deno.mkdir(root);
  await sh(home, root, "init", "-q", "-b", "main");
  const sys = testSys(home);
  return {
    tmp,
    home,
    root,
    sys,
    store: { objectsDir: join(tmp.path, "state", "objects") },
    async open() {
      const repo = await findRepo(sys, root);
      assert.ok(repo !== null);
      return repo;
    },
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

async function commitAll(r: Repo): Promise<void> {
  await sh(r.home, r.root, "add", "-A");
  await sh(r.home, r.root, "commit", "-q", "-m", "base");
}

Deno.test("a repository with no commits is snapshotted, diffed and reverted", async () => {
  await using r = await newRepo();
  await put(r.root, "draft.txt", "draft\n");
  await put(r.root, "keep/me.txt", "keep\n");
  const repo = await r.open();
  const userTree = await treeFingerprint(r.root);
  const before = await snapshot(r.sys, repo, r.store);
  assert.equal(before.head, null);
  await put(r.root, "draft.txt", "draft, edited\n");
  await put(r.root, "added.txt", "added\n");
  await Deno.remove(join(r.root, "keep/me.txt"));
  const after = await snapshot(r.sys, repo, { ...r.store, base: before });
  const changes = await diffSnapshots(r.sys, repo, { ...r.store, before, after });
  assert.deepStrictEqual(changes.files.map((f) => [f.path, f.status]), [
    ["added.txt", "added"],
    ["draft.txt", "modified"],
    ["keep/me.txt", "deleted"],
  ]);
  await revert(r.sys, repo, { ...r.store, before, after });
  assert.deepStrictEqual(await treeFingerprint(r.root), userTree);
  await assert.rejects(() => Deno.stat(join(r.root, ".git", "index")), Deno.errors.NotFound);
});

Deno.test("revert() keeps an empty directory the user had and removes ones the worker made", async () => {
  await using r = await newRepo();
  await put(r.root, "a.txt", "a\n");
  await commitAll(r);
  await Deno.mkdir(join(r.root, "empty", "nested"), { recursive: true });
  await Deno.mkdir(join(r.root, "plain"));
  await put(r.root, "plain/tracked.txt", "t\n");
  const repo = await r.open();
  const userTree = await treeFingerprint(r.root);
  const before = await snapshot(r.sys, repo, r.store);
  assert.deepStrictEqual(before.bareDirs, ["empty"]);
  await put(r.root, "empty/nested/w.txt", "worker\n");
  await put(r.root, "plain/w.txt", "worker\n");
  await put(r.root, "made/by/worker.txt", "worker\n");
  const after = await snapshot(r.sys, repo, { ...r.store, base: before });
  const report = await revert(r.sys, repo, { ...r.store, before, after });
  assert.deepStrictEqual(report.removedDirs, ["made/by", "made"]);
  assert.deepStrictEqual(await treeFingerprint(r.root), userTree);
});

Deno.test("revert() undoes a file replaced by a directory and a changed symlink", async () => {
  await using r = await newRepo();
  await put(r.root, "thing", "a file\n");
  await put(r.root, "target-a.txt", "A\n");
  await Deno.symlink("target-a.txt", join(r.root, "link"));
  await commitAll(r);
  const repo = await r.open();
  const userTree = await treeFingerprint(r.root);
  const before = await snapshot(r.sys, repo, r.store);
  await Deno.remove(join(r.root, "thing"));
  await put(r.root, "thing/inside.txt", "now a dir\n");
  await Deno.remove(join(r.root, "link"));
  await Deno.symlink("elsewhere.txt", join(r.root, "link"));
  const after = await snapshot(r.sys, repo, { ...r.store, base: before });
  const changes = await diffSnapshots(r.sys, repo, { ...r.store, before, after });
  assert.deepStrictEqual(changes.files.map((f) => [f.path, f.status, f.newMode]), [
    ["link", "modified", "120000"],
    ["thing", "deleted", null],
    ["thing/inside.txt", "added", "100644"],
  ]);
  await revert(r.sys, repo, { ...r.store, before, after });
  assert.deepStrictEqual(await treeFingerprint(r.root), userTree);
});

Deno.test("revert() gives back CRLF bytes in a repository that converts line endings", async () => {
  await using r = await newRepo();
  await put(r.root, ".gitattributes", "*.txt text eol=crlf\n");
  await put(r.root, "win.txt", "one\r\ntwo\r\n");
  await commitAll(r);
  await put(r.root, "win.txt", "one\r\ntwo (user)\r\n");
  const repo = await r.open();
  const before = await snapshot(r.sys, repo, r.store);
  await put(r.root, "win.txt", "one\ntwo (worker)\n");
  const after = await snapshot(r.sys, repo, { ...r.store, base: before });
  await revert(r.sys, repo, { ...r.store, before, after });
  assert.equal(await Deno.readTextFile(join(r.root, "win.txt")), "one\r\ntwo (user)\r\n");
});

Deno.test("snapshot() works over a split index without writing a shared index file", async () => {
  await using r = await newRepo();
  await put(r.root, "a.txt", "a\n");
  await commitAll(r);
  await sh(r.home, r.root, "update-index", "--split-index");
  await put(r.root, "a.txt", "a (user)\n");
  const gitDir = await gitDirFingerprint(join(r.root, ".git"));
  const repo = await r.open();
  const before = await snapshot(r.sys, repo, r.store);
  await put(r.root, "a.txt", "a (worker)\n");
  const after = await snapshot(r.sys, repo, { ...r.store, base: before });
  const changes = await diffSnapshots(r.sys, repo, { ...r.store, before, after });
  assert.deepStrictEqual(changes.files.map((f) => [f.path, f.added, f.removed]), [[
    "a.txt",
    1,
    1,
  ]]);
  assert.deepStrictEqual(await gitDirFingerprint(join(r.root, ".git")), gitDir);
});

Deno.test("a read run's changes are found by comparing trees and undone by revert()", async () => {
  await using r = await newRepo();
  await put(r.root, "src/main.ts", "export {};\n");
  await commitAll(r);
  const repo = await r.open();
  const userTree = await treeFingerprint(r.root);
  const before = await snapshot(r.sys, repo, r.store);
  const untouched = await snapshot(r.sys, repo, { ...r.store, base: before });
  assert.equal(untouched.tree, before.tree);
  await put(r.root, "src/main.ts", "export const oops = 1;\n");
  const after = await snapshot(r.sys, repo, { ...r.store, base: before });
  assert.notEqual(after.tree, before.tree);
  await revert(r.sys, repo, { ...r.store, before, after });
  assert.deepStrictEqual(await treeFingerprint(r.root), userTree);
});

Deno.test("the patch applied after a revert brings back exactly the after snapshot", async () => {
  await using r = await newRepo();
  await put(r.root, "text.txt", "1\n2\n3\n");
  await put(r.root, "blob.bin", Uint8Array.from({ length: 300 }, (_, i) => i % 256));
  await put(r.root, "gone.txt", "bye\n");
  await commitAll(r);
  const repo = await r.open();
  const before = await snapshot(r.sys, repo, r.store);
  await put(r.root, "text.txt", "1\n2 changed\n3\n");
  await put(r.root, "blob.bin", Uint8Array.from({ length: 400 }, (_, i) => (i * 7) % 256));
  await put(r.root, "fresh name é.txt", "new\n");
  await Deno.remove(join(r.root, "gone.txt"));
  const after = await snapshot(r.sys, repo, { ...r.store, base: before });
  const patch = await patchBetween(r.sys, repo, { ...r.store, before, after });
  await revert(r.sys, repo, { ...r.store, before, after });
  const patchFile = join(r.tmp.path, "p.diff");
  await Deno.writeFile(patchFile, patch);
  await sh(r.home, r.root, "apply", "--binary", patchFile);
  assert.equal((await snapshot(r.sys, repo, r.store)).tree, after.tree);
});

Deno.test("a worker's file in a folder that only held ignored files is in the after snapshot", async () => {
  await using r = await newRepo();
  await put(r.root, ".gitignore", "*.log\n");
  await commitAll(r);
  await put(r.root, "g/h/z.log", "ignored\n");
  const repo = await r.open();
  const before = await snapshot(r.sys, repo, r.store);
  assert.deepStrictEqual(before.ignored, ["g/h/z.log"]);
  await put(r.root, "g/h/new.txt", "the worker's\n");
  await put(r.root, "g/h/more.log", "still ignored\n");
  const after = await snapshot(r.sys, repo, { ...r.store, base: before });
  const changes = await diffSnapshots(r.sys, repo, { ...r.store, before, after });
  assert.deepStrictEqual(changes.files.map((f) => [f.path, f.status]), [["g/h/new.txt", "added"]]);
});
