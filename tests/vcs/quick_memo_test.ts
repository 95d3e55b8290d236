/**
 * The quick snapshot's memo between runs (src/vcs/quick_memo.ts): a second snapshot of the same
 * dirty tree reuses the tree built over the same index without hashing the files again, and
 * anything that could make it wrong (a file changed in any way, another index, another list
 * from `git status`, the tree's object gone, files changed too recently to be trusted by their
 * stat, an index without a checksum) builds the tree again: every snapshot here is checked
 * against the full path (`git add -A`, `git write-tree`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepo, type RepoInfo, snapshot } from "../../src/vcs/mod.ts";
import {
  indexChecksum,
  memoPath,
  type QuickMemo,
  RACY_MS,
  settled,
} from "../../src/vcs/quick_memo.ts";
import type { Runner } from "../../src/sys/mod.ts";
import type { GitSys } from "../../src/vcs/git.ts";
import { put, sh, tempDir, testSys } from "./_helpers.ts";

/** A tree with a large modified file (hashed by `git hash-object`), edits and new files. */
async function world() {
  const tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  const state = join(tmp.path, "state");
  for (const dir of [home, root, state]) await Deno.mkdir(dir);
  const git = (...args: string[]) => sh(home, root, ...args);
  await git("init", "-q", "-b", "main");
  await put(root, "big.bin", "0".repeat(2 * 1024 * 1024));
  await put(root, "src/a.ts", "a\n");
  await put(root, "src/deep/b.ts", "b\n");
  await put(root, "gone.txt", "gone\n");
  await put(root, ".gitignore", "*.log\n");
  await git("add", "-A");
  await git("commit", "-q", "-m", "base");
  await put(root, "big.bin", "1".repeat(2 * 1024 * 1024));
  await put(root, "src/a.ts", "a, edited\n");
  await Deno.remove(join(root, "gone.txt"));
  await put(root, "new/c.ts", "c\n");
  await put(root, "x.log", "ignored\n");
  const calls: string[] = [];
  const base = testSys(home);
  const runner: Runner = {
    ...base.runner,
    run: (argv, options) => {
      if (argv[0] === "git") calls.push(...argv);
      return base.runner.run(argv, options);
    },
    spawn: (argv, options) => base.runner.spawn(argv, options),
    kill: (pid, signal) => base.runner.kill(pid, signal),
  };
  const sys: GitSys = { ...base, runner };
  const repo = (await findRepo(sys, root))!;
  const objectsDir = join(state, "objects");
  return {
    root,
    git,
    calls,
    objectsDir,
    /** A quick snapshot as a run takes it, its clock `ahead` ms on (files look settled). */
    quick: async (ahead = RACY_MS + 1000) => {
      calls.length = 0;
      const taken = await snapshot(sys, repo, {
        objectsDir,
        memoClock: () => Date.now() + ahead,
      });
      return { taken, hashed: calls.includes("hash-object") };
    },
    full: (r: RepoInfo = repo) =>
      snapshot(sys, r, { objectsDir: join(state, "full"), quick: false }),
    repo,
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

async function memoOf(objectsDir: string): Promise<QuickMemo | null> {
  try {
    return JSON.parse(await Deno.readTextFile(memoPath(objectsDir)));
  } catch {
    return null;
  }
}

Deno.test("quick memo: a second snapshot of the same tree hashes nothing and is the same", async () => {
  await using w = await world();
  const full = await w.full();
  const first = await w.quick();
  assert.ok(first.hashed, "the first snapshot hashes the large file");
  assert.equal(first.taken.tree, full.tree);
  assert.ok((await memoOf(w.objectsDir)) !== null, "a memo is kept");
  const second = await w.quick();
  assert.equal(second.hashed, false, "the second snapshot hashes nothing");
  assert.equal(second.taken.tree, full.tree);
  assert.deepEqual(second.taken.bareDirs, first.taken.bareDirs);
  assert.deepEqual(second.taken.ignored, first.taken.ignored);
});

Deno.test("quick memo: a file rewritten with its size and modification time kept is read again", async () => {
  await using w = await world();
  await w.quick();
  // Another inode (an editor's save: a new file renamed over), same size, same mtime.
  const path = join(w.root, "big.bin");
  const info = await Deno.stat(path);
  await Deno.writeTextFile(`${path}.new`, "2".repeat(2 * 1024 * 1024));
  await Deno.utime(`${path}.new`, info.atime!, info.mtime!);
  await Deno.rename(`${path}.new`, path);
  const again = await w.quick();
  assert.ok(again.hashed, "the changed file is hashed again");
  assert.equal(again.taken.tree, (await w.full()).tree);
});

Deno.test("quick memo: another list from git status, another index, or the tree gone builds again", async () => {
  await using w = await world();
  await w.quick();
  // A new untracked file.
  await put(w.root, "new/d.ts", "d\n");
  let again = await w.quick();
  assert.ok(again.hashed);
  assert.equal(again.taken.tree, (await w.full()).tree);
  assert.equal((await w.quick()).hashed, false, "the new memo is used");
  // Another index (a file staged): the memo names the index it was built on.
  await w.git("add", "src/a.ts");
  again = await w.quick();
  assert.ok(again.hashed);
  assert.equal(again.taken.tree, (await w.full()).tree);
  // The tree's object gone from the store.
  const memo = (await memoOf(w.objectsDir))!;
  await Deno.remove(join(w.objectsDir, memo.tree.slice(0, 2), memo.tree.slice(2)));
  again = await w.quick();
  assert.ok(again.hashed);
  assert.equal(again.taken.tree, (await w.full()).tree);
});

Deno.test("quick memo: files changed just before they are read keep no memo", async () => {
  await using w = await world();
  // The clock as it is: the files were written a moment ago.
  const first = await w.quick(0);
  assert.equal(first.taken.tree, (await w.full()).tree);
  assert.equal(await memoOf(w.objectsDir), null);
  assert.ok((await w.quick(0)).hashed);
  const stat = { size: 1, mode: 0o100644, ino: 1, dev: 1, mtime: 10_000, ctime: 10_000 };
  assert.ok(settled(stat, 10_000 + RACY_MS + 1));
  assert.ok(!settled(stat, 10_000 + RACY_MS));
  assert.ok(!settled({ ...stat, ctime: 12_000 }, 10_000 + RACY_MS + 1));
});

Deno.test("quick memo: an index without a checksum (index.skipHash writes zeros) has no key", async () => {
  await using w = await world();
  const bytes = await Deno.readFile(w.repo.indexFile);
  assert.match(indexChecksum(bytes, 20) ?? "", /^[0-9a-f]{40}$/);
  bytes.fill(0, bytes.length - 20);
  assert.equal(indexChecksum(bytes, 20), null);
  assert.equal(indexChecksum(bytes.subarray(0, 20), 20), null);
});
