/**
 * The snapshot's quick path against its oracle, the full path (`git add -A` and `git write-tree`
 * on a copy of the user's index): on every tree here both give the same tree, bare folders and
 * ignored entries; where the quick path must not be trusted it declines (null) and the snapshot
 * is the full one. The quick path's objects pass `git fsck --strict`, the user's `.git` is left
 * as it was, and a run's snapshot after continues from the quick path's kept index exactly as
 * from the full one's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepo, type RepoInfo, type Snapshot, snapshot } from "../../src/vcs/mod.ts";
import { droppedIndex, quickSnapshot, settledIndex } from "../../src/vcs/quick_snapshot.ts";
import { exists } from "../../src/sys/fs.ts";
import { conversionConfig } from "../../src/vcs/raw.ts";
import { knownFiles } from "../../src/vcs/tree_files.ts";
import { decodeLossless } from "../../src/vcs/lossless.ts";
import { realRunner } from "../../src/sys/real.ts";
import {
  gitDirFingerprint,
  put,
  sh,
  tempDir,
  testEnv,
  testSys,
  type World,
  world,
} from "./_helpers.ts";
import { makeDirtyRepo } from "./_dirty_repo.ts";
import { prng } from "../workers/_fixtures/fuzz.ts";

/** Runs a shell command in the work tree (for names Deno cannot write). */
async function shell(w: World, script: string): Promise<void> {
  const out = await realRunner.run(["sh", "-c", script], { cwd: w.root, env: testEnv(w.home) });
  if (out.code !== 0) throw new Error(`sh failed: ${out.stderr}`);
}

let counter = 0;

/** The quick path alone on a fresh seed; null when it declines (or there is no index). */
async function quickOnly(w: World, repo: RepoInfo, objectsDir: string) {
  const seed = join(w.state, `seed-${counter++}`);
  try {
    const info = await Deno.stat(repo.indexFile);
    await Deno.copyFile(repo.indexFile, seed);
    await Deno.utime(seed, info.atime ?? info.mtime!, info.mtime!);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const store = { objectsDir };
  await Deno.mkdir(objectsDir, { recursive: true });
  try {
    return await quickSnapshot(w.sys, repo, {
      ...store,
      seed,
      config: () => conversionConfig(w.sys, repo, store),
    });
  } finally {
    await Deno.remove(seed).catch(() => undefined);
  }
}

/** NUL-separated names, each decoded as vcs/ decodes git's output. */
function splitNul(bytes: Uint8Array): string[] {
  const names: string[] = [];
  let from = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0) continue;
    if (i > from) names.push(decodeLossless(bytes.subarray(from, i)));
    from = i + 1;
  }
  return names;
}

const sorted = (list: readonly string[]) => [...list].sort();

function sameSnapshot(actual: Omit<Snapshot, "head">, expected: Snapshot, what: string) {
  assert.equal(actual.tree, expected.tree, `${what}: tree`);
  assert.deepEqual(sorted(actual.bareDirs), sorted(expected.bareDirs), `${what}: bare folders`);
  assert.deepEqual(sorted(actual.ignored), sorted(expected.ignored), `${what}: ignored`);
}

/** `git fsck --strict` over Pitroom's store (the user's objects as its alternate). */
async function fsck(w: World, repo: RepoInfo, objectsDir: string): Promise<void> {
  const out = await realRunner.run(["git", "fsck", "--strict", "--no-dangling", "--no-reflogs"], {
    cwd: w.root,
    env: {
      ...testEnv(w.home),
      GIT_OBJECT_DIRECTORY: objectsDir,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: repo.objectsDir,
    },
  });
  assert.equal(out.code, 0, `git fsck: ${out.stdout}${out.stderr}`);
}

/**
 * Compares the quick path with the full one on the tree as it is now: `quick` says whether the
 * quick path must take it (true) or decline it (false).
 */
async function check(w: World, quick: boolean, what = "tree"): Promise<Snapshot> {
  const repo = await findRepo(w.sys, w.root);
  assert.ok(repo !== null);
  const gitDir = await gitDirFingerprint(repo.commonDir);
  const objectsDir = join(w.state, `objects-${counter++}`);
  const full = await snapshot(w.sys, repo, { objectsDir: join(w.state, "full"), quick: false });
  const found = await quickOnly(w, repo, objectsDir);
  if (!quick) assert.equal(found, null, `${what}: the quick path should decline`);
  else {
    assert.ok(found !== null, `${what}: the quick path declined`);
    sameSnapshot(found, full, what);
    await fsck(w, repo, objectsDir);
    // The file list the quick path remembers for its tree is `ls-tree -r`'s, in its order.
    const listed = await realRunner.run(
      ["git", "ls-tree", "-r", "-z", "--name-only", "--full-tree", full.tree],
      {
        cwd: w.root,
        env: {
          ...testEnv(w.home),
          GIT_OBJECT_DIRECTORY: join(w.state, "full"),
          GIT_ALTERNATE_OBJECT_DIRECTORIES: repo.objectsDir,
        },
      },
    );
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      knownFiles(found.tree),
      splitNul(listed.stdoutBytes!),
      `${what}: the file list`,
    );
  }
  const auto = await snapshot(w.sys, repo, { objectsDir: join(w.state, "auto") });
  sameSnapshot(auto, full, `${what} (snapshot)`);
  assert.equal(auto.head, full.head);
  assert.deepEqual(await gitDirFingerprint(repo.commonDir), gitDir, `${what}: .git changed`);
  return full;
}

Deno.test("quick path: a clean tree is the HEAD tree from the cache tree", async () => {
  await using w = await world({ "a.txt": "1\n", "src/b.ts": "2\n", "src/deep/c.ts": "3\n" });
  const full = await check(w, true);
  assert.equal(full.tree, (await w.git("rev-parse", "HEAD^{tree}")).trim());
});

Deno.test("quick path: the dirty fixture (staged, unstaged, untracked, ignored, odd names, stash)", async () => {
  await using tmp = await tempDir();
  const w = {
    home: join(tmp.path, "home"),
    root: join(tmp.path, "repo"),
    state: join(tmp.path, "state"),
  };
  for (const dir of Object.values(w)) await Deno.mkdir(dir);
  await makeDirtyRepo(w.home, w.root);
  const full = { ...w, sys: testSys(w.home) } as unknown as World;
  await check(full, true);
});

Deno.test("quick path: modified, deleted, untracked and executable files in nested folders", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`d${i % 5}/s${i % 3}/f${i}.txt`] = `${i}\n`;
  files["top.txt"] = "top\n";
  files[".gitignore"] = "*.log\nbuild/\n";
  await using w = await world(files);
  await w.put("d0/s0/f0.txt", "changed\n");
  await w.put("d3/s1/f13.txt", "changed too\n");
  await Deno.remove(join(w.root, "d1/s1/f1.txt"));
  await Deno.remove(join(w.root, "top.txt"));
  await w.put("d2/new.txt", "untracked\n");
  await w.put("fresh/one/two/three.txt", "new folder\n");
  await w.put("fresh/one/x.log", "ignored\n");
  await w.put("build/out.js", "ignored folder\n");
  await w.put("d4/s2/y.log", "ignored file\n");
  await Deno.chmod(join(w.root, "d2/s2/f2.txt"), 0o755);
  await w.put("tool.sh", "#!/bin/sh\n");
  await Deno.chmod(join(w.root, "tool.sh"), 0o755);
  await check(w, true);
});

Deno.test("quick path: empty and ignored-only folders are bare, in tracked and new folders", async () => {
  await using w = await world({ "src/a.ts": "a\n", ".gitignore": "*.log\nnode_modules/\n" });
  for (const dir of ["src/empty", "root-empty", "e/f/g", "new/sub/empty", "new/x/y"]) {
    await Deno.mkdir(join(w.root, dir), { recursive: true });
  }
  await w.put("new/file.txt", "new\n");
  await w.put("new/x/only.log", "ignored\n");
  await w.put("new/node_modules/dep/index.js", "ignored folder\n");
  await w.put("logs/a.log", "ignored only\n");
  await w.put("src/node_modules/m.js", "ignored\n");
  const full = await check(w, true);
  assert.ok(full.bareDirs.includes("new/sub"), `bare: ${full.bareDirs}`);
  assert.ok(full.bareDirs.includes("logs"), `bare: ${full.bareDirs}`);
});

Deno.test("quick path: staged changes and an index without a cache tree", async () => {
  await using w = await world({ "a/b/c.txt": "1\n", "a/d.txt": "2\n", "e.txt": "3\n" });
  // Staged: the cache tree is out of date for a/b, a and the root.
  await w.put("a/b/c.txt", "staged\n");
  await w.put("a/b/new.txt", "staged new\n");
  await w.git("add", "a/b");
  await w.put("a/d.txt", "unstaged\n");
  await check(w, true, "out-of-date cache tree");
  // No cache tree at all.
  const listed = await w.git("ls-files", "-s");
  await Deno.remove(join(w.root, ".git", "index"));
  const out = await realRunner.run(["git", "update-index", "--index-info"], {
    cwd: w.root,
    env: testEnv(w.home),
    stdinBytes: new TextEncoder().encode(listed),
  });
  assert.equal(out.code, 0, out.stderr);
  await check(w, true, "no cache tree");
});

Deno.test("quick path: a folder emptied and gone, a file turned folder and a folder turned file", async () => {
  await using w = await world({
    "gone/a.txt": "1\n",
    "gone/b/c.txt": "2\n",
    "x": "file\n",
    "d/f.txt": "3\n",
    "k.txt": "k\n",
  });
  await Deno.remove(join(w.root, "gone"), { recursive: true });
  await Deno.remove(join(w.root, "x"));
  await w.put("x/y.txt", "now a folder\n");
  await Deno.remove(join(w.root, "d"), { recursive: true });
  await w.put("d", "now a file\n");
  await check(w, true);
});

Deno.test("quick path: a folder whose files are all deleted but which is still there is declined", async () => {
  await using w = await world({ "kept/a.txt": "1\n", "k.txt": "k\n" });
  await Deno.remove(join(w.root, "kept/a.txt"));
  await check(w, false);
});

Deno.test("quick path: names that sort around the slash, odd characters and a large file", async () => {
  const files: Record<string, string> = {};
  for (const name of ["a", "a.b", "a-b", "a0", "a_", "ab", "a b", "é", "😀", "Z", "~"]) {
    files[`n/${name}/f.txt`] = `${name}\n`;
    files[`n/${name}.txt`] = `${name} file\n`;
  }
  files['q/"quoted".txt'] = "q\n";
  files["q/back\\slash.txt"] = "b\n";
  files["q/tab\there.txt"] = "t\n";
  await using w = await world(files);
  await w.put("n/a/f.txt", "changed\n");
  await w.put("n/a.b/g.txt", "new\n");
  await w.put("n/😀/f.txt", "changed\n");
  await w.put("n/a0.txt", "changed\n");
  await w.put('q/"quoted".txt', "changed\n");
  await w.put("q/line\nbreak.txt", "newline in a name\n");
  await w.put("big/large.bin", new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251));
  await check(w, true);
});

Deno.test("quick path: a tracked name that is not UTF-8 is hashed; an untracked one is declined", async () => {
  await using w = await world({ "a.txt": "1\n" });
  await shell(w, `printf one > "$(printf 'bad\\351.txt')"`);
  await w.git("add", "-A");
  await w.git("commit", "-q", "-m", "bad name");
  await shell(w, `printf two > "$(printf 'bad\\351.txt')"`);
  await check(w, true, "tracked");
  await shell(w, `printf new > "$(printf 'new\\352.txt')"`);
  await check(w, false, "untracked");
});

Deno.test("quick path: an index of version 4 (paths compressed)", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) files[`lib/module${i % 4}/file-${i}.ts`] = `${i}\n`;
  await using w = await world(files);
  await w.git("update-index", "--index-version", "4");
  await w.put("lib/module1/file-1.ts", "changed\n");
  await w.put("lib/module9/new.ts", "new\n");
  await Deno.remove(join(w.root, "lib/module2/file-2.ts"));
  await check(w, true);
});

Deno.test("quick path: trees it must not read plainly are declined and snapshot the full way", async (t) => {
  const cases: [string, (w: World) => Promise<unknown>][] = [
    ["a .gitattributes file", async (w) => {
      await w.put(".gitattributes", "*.txt text eol=crlf\n");
      await w.git("add", ".gitattributes");
      await w.put("a.txt", "changed\n");
    }],
    ["an untracked .gitattributes", (w) => w.put("sub/.gitattributes", "* -text\n")],
    ["core.autocrlf", async (w) => {
      await w.git("config", "core.autocrlf", "true");
      await w.put("a.txt", "crlf\r\n");
    }],
    ["core.fileMode off", (w) => w.git("config", "core.fileMode", "false")],
    ["a conflict", async (w) => {
      await w.git("checkout", "-q", "-b", "other");
      await w.put("a.txt", "theirs\n");
      await w.git("commit", "-q", "-am", "theirs");
      await w.git("checkout", "-q", "main");
      await w.put("a.txt", "ours\n");
      await w.git("commit", "-q", "-am", "ours");
      await realRunner.run(["git", "merge", "-q", "other"], { cwd: w.root, env: testEnv(w.home) });
    }],
    ["an intent-to-add entry", async (w) => {
      await w.put("ita.txt", "later\n");
      await w.git("add", "-N", "ita.txt");
    }],
    ["an assume-unchanged entry", (w) => w.git("update-index", "--assume-unchanged", "a.txt")],
    ["a skip-worktree entry", (w) => w.git("update-index", "--skip-worktree", "a.txt")],
    ["a split index", (w) => w.git("update-index", "--split-index")],
    ["a sparse checkout", async (w) => {
      await w.put("in/x.txt", "in\n");
      await w.put("out/y.txt", "out\n");
      await w.git("add", "-A");
      await w.git("commit", "-q", "-m", "two folders");
      await w.git("sparse-checkout", "set", "in");
    }],
    ["a changed symbolic link", async (w) => {
      await Deno.symlink("a.txt", join(w.root, "link"));
      await w.git("add", "link");
      await w.git("commit", "-q", "-m", "link");
      await Deno.remove(join(w.root, "link"));
      await Deno.symlink("elsewhere", join(w.root, "link"));
    }],
    ["an untracked symbolic link", (w) => Deno.symlink("a.txt", join(w.root, "new-link"))],
    ["a file turned into a symbolic link", async (w) => {
      await Deno.remove(join(w.root, "a.txt"));
      await Deno.symlink("b", join(w.root, "a.txt"));
    }],
    ["a nested repository", async (w) => {
      await Deno.mkdir(join(w.root, "nested"));
      await sh(w.home, join(w.root, "nested"), "init", "-q");
      await sh(w.home, join(w.root, "nested"), "commit", "-q", "--allow-empty", "-m", "n");
    }],
    ["a submodule", async (w) => {
      const sub = join(w.state, "sub");
      await Deno.mkdir(sub);
      await sh(w.home, sub, "init", "-q");
      await sh(w.home, sub, "commit", "-q", "--allow-empty", "-m", "s");
      await w.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mod");
    }],
  ];
  for (const [name, make] of cases) {
    await t.step(name, async () => {
      await using w = await world({ "a.txt": "one\n", "b.txt": "two\n" });
      await make(w);
      await check(w, false, name);
    });
  }
});

Deno.test("quick path: an unchanged symbolic link and one among untouched files are fine", async () => {
  await using w = await world({ "a.txt": "1\n" });
  await Deno.symlink("a.txt", join(w.root, "link"));
  await w.git("add", "link");
  await w.git("commit", "-q", "-m", "link");
  await w.put("a.txt", "changed\n");
  await check(w, true);
});

/** The random trees tried (each costs a second or two on a loaded machine). */
const SEEDS = 8;

Deno.test("quick path: random trees and random work on them match the full path", async () => {
  const names = ["a", "b", "a.b", "a-b", "a0", "x y", "é", "deep"];
  let quickly = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const next = prng(seed);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    // Folders hold a handful of files each; names that sort around "/" are files and folders.
    const folder = () =>
      Array.from({ length: Math.floor(next() * 3) }, () => pick(names.slice(0, 4))).join("/");
    const files: Record<string, string> = { ".gitignore": "*.log\ntmp/\n" };
    for (let i = 0; i < 150; i++) {
      const dir = folder();
      files[`${dir === "" ? "" : `${dir}/`}${pick(names)}${i}.txt`] = `${seed}-${i}\n`;
    }
    await using w = await world(files);
    const tracked = Object.keys(files).filter((path) => path !== ".gitignore");
    for (let i = 0; i < 8; i++) await w.put(pick(tracked), `edit ${seed}-${i}\n`);
    for (let i = 0; i < 4; i++) {
      await Deno.remove(join(w.root, pick(tracked))).catch(() => undefined);
    }
    if (next() < 0.3) {
      const gone = pick(tracked.filter((path) => path.includes("/")));
      await Deno.remove(join(w.root, gone.split("/")[0]!), { recursive: true });
    }
    for (let i = 0; i < 6; i++) {
      const dir = `${folder()}/${pick(["n", "m", "a"])}${i}`.replace(/^\//, "");
      await w.put(`${dir}/u${i}.txt`, `untracked ${i}\n`);
    }
    for (let i = 0; i < 3; i++) {
      await Deno.mkdir(join(w.root, folder(), `empty${i}`), { recursive: true });
    }
    await w.put(`${folder()}/x.log`.replace(/^\//, ""), "ignored\n");
    await w.put(`tmp/${pick(names)}.txt`, "ignored folder\n");
    const some = pick(tracked);
    await Deno.chmod(join(w.root, some), 0o755).catch(() => undefined);
    if (next() < 0.5) {
      await w.put(pick(tracked), `staged ${seed}\n`);
      await w.git("add", "-A", "--", ".");
      await w.put(pick(tracked), `then edited ${seed}\n`);
    }
    // A tracked folder left with no file while still on disk is declined by design.
    const repo = await findRepo(w.sys, w.root);
    const quick = await quickOnly(w, repo!, join(w.state, "probe"));
    const full = await check(w, quick !== null, `seed ${seed}`);
    if (quick !== null) quickly++;
    // Taken again with the files settled: the second one comes from the memo (quick_memo.ts).
    const memoed = { objectsDir: join(w.state, "memo"), memoClock: () => Date.now() + 60_000 };
    for (let n = 0; n < 2; n++) {
      sameSnapshot(await snapshot(w.sys, repo!, memoed), full, `seed ${seed}, memo ${n}`);
    }
  }
  // Most trees are taken quickly (a folder left with no file while on disk is declined).
  assert.ok(quickly >= SEEDS - 2, `only ${quickly} of ${SEEDS} trees took the quick path`);
});

Deno.test("quick path: the snapshot after continues from its kept index as from the full path's", async () => {
  await using w = await world({ "a.txt": "1\n", "src/b.ts": "2\n", ".gitignore": "*.log\n" });
  await w.put("src/b.ts", "user edit\n");
  await w.put("notes.txt", "untracked note\n");
  await w.put("debug.log", "ignored\n");
  const repo = (await findRepo(w.sys, w.root))!;
  const run = async (quick: boolean, keepOnDemand = false) => {
    const dir = join(w.state, quick ? (keepOnDemand ? "d" : "q") : "f");
    await Deno.mkdir(dir);
    const store = { objectsDir: join(dir, "objects"), indexFile: join(dir, "index") };
    const before = await snapshot(w.sys, repo, { ...store, quick, keepOnDemand });
    return { store, before };
  };
  const quick = await run(true);
  const full = await run(false);
  // Kept on demand: not written until the snapshot after asks for it.
  const onDemand = await run(true, true);
  assert.equal(await exists(onDemand.store.indexFile), false);
  sameSnapshot(quick.before, full.before, "before");
  sameSnapshot(onDemand.before, full.before, "before, kept on demand");
  // The worker: edits, adds, and makes git ignore the user's untracked note.
  await w.put("a.txt", "worker\n");
  await w.put("src/c.ts", "worker added\n");
  await w.put(".gitignore", "*.log\nnotes.txt\n");
  await w.put("worker.log", "ignored by the base\n");
  const after = async (
    side: { store: { objectsDir: string; indexFile: string }; before: Snapshot },
  ) => await snapshot(w.sys, repo, { ...side.store, base: side.before, readHead: false });
  const a = await after(quick);
  const b = await after(full);
  assert.equal(a.tree, b.tree);
  // Written after the worker worked, it still gives the same tree.
  assert.equal((await after(onDemand)).tree, b.tree);
  const listed = await realRunner.run(["git", "ls-tree", "-r", "--name-only", a.tree], {
    cwd: w.root,
    env: {
      ...testEnv(w.home),
      GIT_OBJECT_DIRECTORY: quick.store.objectsDir,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: join(w.root, ".git", "objects"),
    },
  });
  assert.ok(listed.stdout.split("\n").includes("notes.txt"), listed.stdout);
  assert.ok(!listed.stdout.split("\n").includes("worker.log"), listed.stdout);
});

Deno.test("quick path: a kept index asked for on demand and dropped is never written, its seed removed", async () => {
  await using w = await world({ "a.txt": "1\n" });
  await w.put("a.txt", "user edit\n");
  const repo = (await findRepo(w.sys, w.root))!;
  const store = { objectsDir: join(w.state, "objects"), indexFile: join(w.state, "index") };
  await snapshot(w.sys, repo, { ...store, keepOnDemand: true });
  assert.deepEqual(await names(w.state), ["index.seed", "objects"]);
  await droppedIndex(store.indexFile);
  assert.deepEqual(await names(w.state), ["objects"]);
  // Settling one dropped does nothing.
  await settledIndex(store.indexFile);
  assert.deepEqual(await names(w.state), ["objects"]);
});

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}

Deno.test("quick path: nested ignore files, negations, info/exclude and an ignored folder with a tracked file", async () => {
  await using w = await world({
    ".gitignore": "*.log\n!keep.log\n/anchored/\nvendor/\n",
    "src/.gitignore": "gen/\n*.tmp\n",
    "src/a.ts": "a\n",
    "vendor/tracked.js": "tracked though ignored\n",
  });
  await w.put(".git/info/exclude", "secret.txt\n");
  await w.put("keep.log", "not ignored\n");
  await w.put("other.log", "ignored\n");
  await w.put("anchored/x.txt", "ignored folder\n");
  await w.put("deep/anchored/y.txt", "not anchored here\n");
  await w.put("src/gen/out.ts", "ignored by the nested file\n");
  await w.put("src/b.tmp", "ignored\n");
  await w.put("secret.txt", "excluded\n");
  await w.put("vendor/new.js", "untracked in an ignored folder\n");
  await Deno.mkdir(join(w.root, "vendor/empty"));
  await Deno.mkdir(join(w.root, "src/gen/empty"), { recursive: true });
  await w.put("vendor/tracked.js", "edited\n");
  await check(w, true);
});

Deno.test("quick path: a linked worktree, whose .git is a file", async () => {
  await using w = await world({ "a.txt": "1\n", "src/b.ts": "2\n" });
  const linked = join(w.state, "linked");
  await w.git("worktree", "add", "-q", "--detach", linked);
  const other = { ...w, root: linked, git: (...args: string[]) => sh(w.home, linked, ...args) };
  await put(linked, "src/b.ts", "edited in the worktree\n");
  await put(linked, "new/c.ts", "new\n");
  await Deno.mkdir(join(linked, "empty"));
  await check(other, true);
});

Deno.test("quick path: more new files than it reads itself go to git hash-object", async () => {
  await using w = await world({ "a.txt": "1\n" });
  for (let i = 0; i < 1100; i++) await w.put(`many/f${i % 7}/n${i}.txt`, `new file ${i}\n`);
  await check(w, true);
});

Deno.test("quick path: in a repository with no commit yet, HEAD is null on both paths", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  await Deno.mkdir(home);
  await Deno.mkdir(root);
  await sh(home, root, "init", "-q", "-b", "main");
  await put(root, "a.txt", "staged\n");
  await sh(home, root, "add", "a.txt");
  await put(root, "b.txt", "untracked\n");
  const sys = testSys(home);
  const repo = (await findRepo(sys, root))!;
  const full = await snapshot(sys, repo, { objectsDir: join(tmp.path, "full"), quick: false });
  const quick = await snapshot(sys, repo, { objectsDir: join(tmp.path, "quick") });
  assert.equal(full.head, null);
  assert.equal(quick.head, null);
  assert.equal(quick.tree, full.tree);
});
