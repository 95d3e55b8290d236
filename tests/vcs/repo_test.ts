/**
 * Finding the repository: not a repository, a bare one, a subdirectory as cwd, a linked
 * worktree, and the store key.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { RefusedError } from "../../src/sys/errors.ts";
import {
  diffSnapshots,
  findRepo,
  repoKey,
  requireRepo,
  revert,
  snapshot,
} from "../../src/vcs/mod.ts";
import { put, sh, tempDir, testSys, treeFingerprint } from "./_helpers.ts";

Deno.test("findRepo() returns null outside a work tree and requireRepo() refuses with a hint", async () => {
  await using tmp = await tempDir();
  const sys = testSys(tmp.path);
  const plain = join(tmp.path, "plain");
  await Deno.mkdir(plain);
  assert.equal(await findRepo(sys, plain), null);
  await assert.rejects(() => requireRepo(sys, plain), (error: unknown) => {
    assert.ok(error instanceof RefusedError);
    assert.equal(error.code, "not_a_git_repo");
    assert.equal(error.hint, "run `git init` first");
    assert.match(error.message, /Not inside a git work tree: ".*plain"/);
    return true;
  });
});

Deno.test("findRepo() returns null in a bare repository", async () => {
  await using tmp = await tempDir();
  await sh(tmp.path, tmp.path, "init", "-q", "--bare", "bare.git");
  assert.equal(await findRepo(testSys(tmp.path), join(tmp.path, "bare.git")), null);
});

Deno.test("a subdirectory cwd snapshots the whole work tree with root-relative paths", async () => {
  await using tmp = await tempDir();
  const sys = testSys(tmp.path);
  const root = join(tmp.path, "repo");
  await Deno.mkdir(join(root, "pkg", "inner"), { recursive: true });
  await sh(tmp.path, root, "init", "-q");
  await put(root, "top.txt", "top\n");
  await put(root, "pkg/inner/file.txt", "inner\n");
  const repo = await findRepo(sys, join(root, "pkg", "inner"));
  assert.ok(repo !== null);
  assert.equal(repo.root, root);
  assert.equal(repo.gitDir, join(root, ".git"));
  const store = { objectsDir: join(tmp.path, "store", "objects") };
  const before = await snapshot(sys, repo, store);
  await put(root, "top.txt", "top changed\n");
  await put(root, "pkg/inner/file.txt", "inner changed\n");
  const after = await snapshot(sys, repo, { ...store, base: before });
  const changes = await diffSnapshots(sys, repo, { ...store, before, after });
  assert.deepStrictEqual(changes.files.map((f) => f.path), ["pkg/inner/file.txt", "top.txt"]);
});

Deno.test("a linked worktree is tracked with its own git dir and the common object store", async () => {
  await using tmp = await tempDir();
  const sys = testSys(tmp.path);
  const main = join(tmp.path, "main");
  await Deno.mkdir(main);
  await sh(tmp.path, main, "init", "-q", "-b", "main");
  await put(main, "f.txt", "base\n");
  await sh(tmp.path, main, "add", "-A");
  await sh(tmp.path, main, "commit", "-q", "-m", "base");
  const wt = join(tmp.path, "wt");
  await sh(tmp.path, main, "worktree", "add", "-q", "-b", "side", wt);
  await put(wt, "f.txt", "user edit in worktree\n");
  const objects = await sh(tmp.path, main, "count-objects", "-v");
  const indexBytes = await Deno.readFile(join(main, ".git", "worktrees", "wt", "index"));

  const repo = await findRepo(sys, wt);
  assert.ok(repo !== null);
  assert.equal(repo.root, wt);
  assert.equal(repo.gitDir, join(main, ".git", "worktrees", "wt"));
  assert.equal(repo.commonDir, join(main, ".git"));
  assert.equal(repo.objectsDir, join(main, ".git", "objects"));
  assert.equal(repo.indexFile, join(main, ".git", "worktrees", "wt", "index"));

  const store = { objectsDir: join(tmp.path, "store", "objects") };
  const userTree = await treeFingerprint(wt);
  const before = await snapshot(sys, repo, store);
  assert.equal(before.head, (await sh(tmp.path, wt, "rev-parse", "HEAD")).trim());
  await put(wt, "f.txt", "worker edit\n");
  await put(wt, "g.txt", "worker file\n");
  const after = await snapshot(sys, repo, { ...store, base: before });
  const changes = await diffSnapshots(sys, repo, { ...store, before, after });
  assert.deepStrictEqual(changes.files.map((f) => [f.path, f.status]), [
    ["f.txt", "modified"],
    ["g.txt", "added"],
  ]);
  await revert(sys, repo, { ...store, before, after });
  assert.deepStrictEqual(await treeFingerprint(wt), userTree);
  assert.equal(await sh(tmp.path, main, "count-objects", "-v"), objects);
  assert.deepStrictEqual(
    await Deno.readFile(join(main, ".git", "worktrees", "wt", "index")),
    indexBytes,
  );
});

Deno.test("repoKey() is 16 hex digits, stable, and the same through a symlink", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "repo");
  await Deno.mkdir(dir);
  await Deno.symlink(dir, join(tmp.path, "link"));
  const key = await repoKey(dir);
  assert.match(key, /^[0-9a-f]{16}$/);
  assert.equal(await repoKey(dir), key);
  assert.equal(await repoKey(join(tmp.path, "link")), key);
  assert.notEqual(await repoKey(tmp.path), key);
});

Deno.test("a repository under a path with a colon borrows its objects through a quoted alternate", async () => {
  await using tmp = await tempDir();
  const sys = testSys(tmp.path);
  const root = join(tmp.path, "odd:name");
  await Deno.mkdir(root);
  await sh(tmp.path, root, "init", "-q");
  await put(root, "f.txt", "committed\n");
  // Old enough that git trusts the index entry and never re-hashes it into Pitroom's store.
  await Deno.utime(join(root, "f.txt"), 1_600_000_000, 1_600_000_000);
  await sh(tmp.path, root, "add", "-A");
  await sh(tmp.path, root, "commit", "-q", "-m", "base");
  const repo = await findRepo(sys, root);
  assert.ok(repo !== null);
  const store = { objectsDir: join(tmp.path, "store", "objects") };
  const before = await snapshot(sys, repo, store);
  await put(root, "f.txt", "worker\n");
  const after = await snapshot(sys, repo, { ...store, base: before });
  // Reverting needs the committed blob, which only the user's object store has.
  await revert(sys, repo, { ...store, before, after });
  assert.equal(await Deno.readTextFile(join(root, "f.txt")), "committed\n");
});
