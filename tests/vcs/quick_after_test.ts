/**
 * The snapshot after a worker by its quick path (vcs/quick_after.ts) against its oracle, the full
 * path (`git add -A` on the kept index of a full snapshot before, `git write-tree`): both give the
 * same tree after every kind of work here. Where the quick path is taken its kept index stays
 * unwritten; where it must not be trusted it declines, the kept index is written then, and the
 * tree is still the oracle's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepo, type RepoInfo, type Snapshot, snapshot } from "../../src/vcs/mod.ts";
import { droppedIndex } from "../../src/vcs/quick_snapshot.ts";
import { exists } from "../../src/sys/fs.ts";
import { realRunner } from "../../src/sys/real.ts";
import { testEnv, type World, world } from "./_helpers.ts";
import { prng } from "../workers/_fixtures/fuzz.ts";

let counter = 0;

interface Sides {
  repo: RepoInfo;
  /** Whether the snapshot before took the quick path (its kept index unwritten). */
  quickBefore: boolean;
  quick: { store: { objectsDir: string; indexFile: string }; before: Snapshot };
  full: { store: { objectsDir: string; indexFile: string }; before: Snapshot };
}

/** The snapshot before by each path: the quick one kept on demand, the full one with its index. */
async function befores(w: World, memoClock?: () => number): Promise<Sides> {
  const repo = (await findRepo(w.sys, w.root))!;
  const side = async (quick: boolean) => {
    const dir = join(w.state, `side-${counter++}`);
    await Deno.mkdir(dir);
    const store = { objectsDir: join(dir, "objects"), indexFile: join(dir, "index") };
    const before = await snapshot(w.sys, repo, {
      ...store,
      quick,
      ...(quick ? { keepOnDemand: true, ...(memoClock ? { memoClock } : {}) } : {}),
    });
    return { store, before };
  };
  const quick = await side(true);
  const full = await side(false);
  assert.equal(quick.before.tree, full.before.tree, "the snapshots before");
  return { repo, quickBefore: !(await exists(quick.store.indexFile)), quick, full };
}

/**
 * Both snapshots after, compared; `quick`: whether the quick path must take the tree (its kept
 * index stays unwritten) or decline it (the kept index is written).
 */
async function after(w: World, sides: Sides, quick: boolean, what: string): Promise<string> {
  const { repo } = sides;
  const a = await snapshot(w.sys, repo, {
    ...sides.quick.store,
    base: sides.quick.before,
    readHead: false,
  });
  const b = await snapshot(w.sys, repo, {
    ...sides.full.store,
    base: sides.full.before,
    readHead: false,
    quick: false,
  });
  assert.equal(a.tree, b.tree, `${what}: tree`);
  assert.equal(a.head, sides.full.before.head);
  assert.equal(
    await exists(sides.quick.store.indexFile),
    !quick,
    `${what}: the quick path should ${quick ? "take" : "decline"} it`,
  );
  const fsck = await realRunner.run(["git", "fsck", "--strict", "--no-dangling", "--no-reflogs"], {
    cwd: w.root,
    env: {
      ...testEnv(w.home),
      GIT_OBJECT_DIRECTORY: sides.quick.store.objectsDir,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: repo.objectsDir,
    },
  });
  assert.equal(fsck.code, 0, `git fsck: ${fsck.stdout}${fsck.stderr}`);
  return a.tree;
}

async function paths(w: World, sides: Sides, tree: string): Promise<string[]> {
  const out = await realRunner.run(["git", "ls-tree", "-r", "--name-only", tree], {
    cwd: w.root,
    env: {
      ...testEnv(w.home),
      GIT_OBJECT_DIRECTORY: sides.quick.store.objectsDir,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: sides.repo.objectsDir,
    },
  });
  assert.equal(out.code, 0, out.stderr);
  return out.stdout.split("\n").filter((line) => line !== "");
}

Deno.test("quick after: the kept index's meaning: the base's untracked files stay, its ignored ones stay out", async () => {
  await using w = await world({ "a.txt": "1\n", "src/b.ts": "2\n", ".gitignore": "*.log\ntmp/\n" });
  await w.put("src/b.ts", "user edit\n");
  await w.put("notes.txt", "untracked note\n");
  await w.put("drafts/plan.md", "untracked folder\n");
  await w.put("debug.log", "ignored\n");
  await w.put("tmp/cache.txt", "ignored folder\n");
  const sides = await befores(w);
  // Nothing done: the tree before.
  assert.equal(await after(w, sides, true, "no work"), sides.full.before.tree);
  // The worker edits, adds, and makes git ignore the user's untracked note and folder, and stops
  // ignoring the logs and tmp/: the ignored files there before stay out, a new log comes in.
  await w.put("a.txt", "worker\n");
  await w.put("src/c.ts", "worker added\n");
  await w.put(".gitignore", "notes.txt\ndrafts/\n");
  await w.put("worker.log", "a new log, no longer ignored\n");
  await w.put("tmp/new.txt", "in a folder ignored by the base\n");
  const tree = await after(w, sides, true, "work");
  const listed = await paths(w, sides, tree);
  for (const kept of ["notes.txt", "drafts/plan.md", "src/c.ts", "worker.log"]) {
    assert.ok(listed.includes(kept), kept);
  }
  for (const out of ["debug.log", "tmp/new.txt", "tmp/cache.txt"]) {
    assert.ok(!listed.includes(out), out);
  }
  // The note, now ignored, deleted: gone from the tree; changed again: its new bytes.
  await Deno.remove(join(w.root, "notes.txt"));
  await w.put("drafts/plan.md", "changed while ignored\n");
  await after(w, sides, true, "ignored ones changed");
  await droppedIndex(sides.quick.store.indexFile);
});

/** The random trees tried (each costs a second or two on a loaded machine). */
const SEEDS = 6;

Deno.test("quick after: random trees and random work on them match the full path", async () => {
  const names = ["a", "b", "a.b", "a-b", "a0", "x y", "é", "deep"];
  let quickly = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const next = prng(seed * 7919);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    const folder = () =>
      Array.from({ length: Math.floor(next() * 3) }, () => pick(names.slice(0, 4))).join("/");
    const at = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);
    const files: Record<string, string> = { ".gitignore": "*.log\ntmp/\n" };
    for (let i = 0; i < 80; i++) files[at(folder(), `${pick(names)}${i}.txt`)] = `${seed}-${i}\n`;
    await using w = await world(files);
    const tracked = Object.keys(files).filter((path) => path !== ".gitignore");
    // The user's tree before: edits, a deletion, untracked and ignored files, a staged change.
    for (let i = 0; i < 4; i++) await w.put(pick(tracked), `user ${seed}-${i}\n`);
    await Deno.remove(join(w.root, pick(tracked))).catch(() => undefined);
    const untracked: string[] = [];
    for (let i = 0; i < 4; i++) {
      const path = at(folder(), `u${i}.txt`);
      untracked.push(path);
      await w.put(path, `untracked ${i}\n`);
    }
    await w.put(at(folder(), "x.log"), "ignored\n");
    if (next() < 0.5) {
      await w.put(pick(tracked), `staged ${seed}\n`);
      await w.git("add", "-A", "--", ".");
    }
    const sides = await befores(w);
    const deleted = await deletedNow(w);
    // The worker.
    for (let i = 0; i < 6; i++) await w.put(pick(tracked), `worker ${seed}-${i}\n`);
    for (let i = 0; i < 2; i++) {
      await Deno.remove(join(w.root, pick(tracked))).catch(() => undefined);
    }
    await Deno.remove(join(w.root, pick(untracked))).catch(() => undefined);
    await w.put(pick(untracked), `worker edits an untracked file ${seed}\n`).catch(() => undefined);
    for (let i = 0; i < 4; i++) await w.put(at(folder(), `w${i}/n${i}.txt`), `new ${i}\n`);
    await w.put(at(folder(), "w.log"), "ignored\n");
    await w.put(`tmp/${pick(names)}.txt`, "ignored folder\n");
    await Deno.chmod(join(w.root, pick(tracked)), 0o755).catch(() => undefined);
    if (next() < 0.4) {
      const gone = pick(tracked.filter((path) => path.includes("/")));
      await Deno.remove(join(w.root, gone.split("/")[0]!), { recursive: true }).catch(() => {});
    }
    if (next() < 0.4) await w.put(".gitignore", `${pick(untracked)}\n*.txt\n`);
    if (next() < 0.3) {
      // A file turned into a folder.
      const file = pick(tracked);
      await Deno.remove(join(w.root, file)).catch(() => undefined);
      await w.put(`${file}/inside.txt`, "was a file\n").catch(() => undefined);
    }
    // A folder whose tracked files are all gone is taken too (the snapshot after records no
    // bare folders); a file deleted before the worker and back is declined.
    const declines = !sides.quickBefore || await back(w, deleted);
    await after(w, sides, !declines, `seed ${seed}`);
    if (!declines) quickly++;
    await droppedIndex(sides.quick.store.indexFile);
  }
  assert.ok(quickly >= SEEDS - 1, `only ${quickly} of ${SEEDS} took the quick path`);
});

/** The files of the user's index not on disk (the snapshot before finds them deleted). */
async function deletedNow(w: World): Promise<string[]> {
  const out = await realRunner.run(["git", "ls-files", "-z", "--deleted"], {
    cwd: w.root,
    env: testEnv(w.home),
  });
  assert.equal(out.code, 0, out.stderr);
  return out.stdout.split("\0").filter((path) => path !== "");
}

/** True when one of `paths` is on disk again as something other than a folder. */
async function back(w: World, paths: readonly string[]): Promise<boolean> {
  for (const path of paths) {
    const info = await Deno.lstat(join(w.root, path)).catch(() => null);
    if (info !== null && !info.isDirectory) return true;
  }
  return false;
}

Deno.test("quick after: what it must not trust is declined, and the full path gives the tree", async (t) => {
  const cases: [string, (w: World) => Promise<void>][] = [
    ["a symbolic link added", (w) => Deno.symlink("a.txt", join(w.root, "link"))],
    ["an attributes file added", (w) => w.put("sub/.gitattributes", "*.txt text eol=crlf\n")],
    ["a file deleted before and back", (w) => w.put("gone.txt", "back\n")],
    ["a file deleted before and back, ignored now", async (w) => {
      await w.put(".gitignore", "gone.txt\n");
      await w.put("gone.txt", "back\n");
    }],
    ["a nested repository", async (w) => {
      await w.put("nested/x.txt", "x\n");
      for (const args of [["init", "-q"], ["add", "x.txt"], ["commit", "-q", "-m", "n"]]) {
        const out = await realRunner.run(["git", ...args], {
          cwd: join(w.root, "nested"),
          env: testEnv(w.home),
        });
        assert.equal(out.code, 0, out.stderr);
      }
    }],
  ];
  for (const [name, work] of cases) {
    await t.step(name, async () => {
      await using w = await world({ "a.txt": "1\n", "gone.txt": "g\n", "sub/b.txt": "b\n" });
      await Deno.remove(join(w.root, "gone.txt"));
      const sides = await befores(w);
      assert.ok(sides.quickBefore);
      await work(w);
      await after(w, sides, false, name);
      // Declined once, the kept index is in place: the next snapshot after continues from it.
      await w.put("a.txt", "again\n");
      await after(w, sides, false, `${name}, again`);
      await droppedIndex(sides.quick.store.indexFile);
    });
  }
});

Deno.test("quick after: a file the snapshot before read keeps its id only while its stat vouches for it", async () => {
  await using w = await world({ "a.txt": "1\n", "b.txt": "2\n" });
  await w.put("a.txt", "user 1\n");
  await w.put("new.txt", "untracked\n");
  // The files were changed long enough before the snapshot read them (its clock a minute on).
  const sides = await befores(w, () => Date.now() + 60_000);
  const original = await Deno.lstat(join(w.root, "a.txt"));
  // A change the stat can tell needs the change time to move on: wait for it, bounded.
  const probe = join(w.state, "probe");
  for (let i = 0;; i++) {
    await Deno.writeTextFile(probe, `${i}`);
    if ((await Deno.lstat(probe)).ctime!.getTime() > original.ctime!.getTime()) break;
    assert.ok(i < 500, "the change time never moved on");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // Same size, modification time set back: the change time still tells it.
  await w.put("a.txt", "user 2\n");
  await Deno.utime(join(w.root, "a.txt"), original.atime!, original.mtime!);
  await w.put("new.txt", "untracked, changed\n");
  await after(w, sides, true, "rewritten with its old modification time");
  await droppedIndex(sides.quick.store.indexFile);
});
