/**
 * Plans of writes carried out in a real work tree: each file is put in place by a rename (a
 * reader never sees a short file, even a large one), an existing file keeps its permission
 * bits, a plan that anything blocks writes nothing, a plan cut short is finished by carrying it
 * out again and undone by its reverse, and scratch space on another file system still works.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  carryOut,
  type Entry,
  findRepo,
  keepFiles,
  PlanBlocked,
  type RepoInfo,
  reversePlan,
  type StoreOptions,
  type TreePlan,
} from "../../src/vcs/mod.ts";
import { progressOf } from "../../src/vcs/tree_plan.ts";
import { put, sh, type TempDir, tempDir, testSys, treeFingerprint } from "./_helpers.ts";

interface Setup extends AsyncDisposable {
  tmp: TempDir;
  root: string;
  repo: RepoInfo;
  store: StoreOptions;
  sys: ReturnType<typeof testSys>;
  home: string;
}

async function setup(files: Record<string, string | Uint8Array>): Promise<Setup> {
  const tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  await Deno.mkdir(home);
  await Deno.mkdir(root);
  const sys = testSys(home);
  await sh(home, root, "init", "-q");
  for (const [path, content] of Object.entries(files)) await put(root, path, content);
  const repo = await findRepo(sys, root);
  assert.ok(repo !== null);
  const store = { objectsDir: join(tmp.path, "state", "objects") };
  return {
    tmp,
    root,
    repo,
    store,
    sys,
    home,
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

/** Stores the files at `paths` as they are now; their entries. */
async function entries(s: Setup, paths: string[]): Promise<Map<string, Entry | null>> {
  return await keepFiles(s.sys, s.repo, { ...s.store, paths });
}

/** A plan from the tree as it is to `then` (a function that changes it), the tree put back. */
async function planTo(s: Setup, paths: string[], then: () => Promise<void>): Promise<TreePlan> {
  const from = await entries(s, paths);
  const bytes = new Map<string, Uint8Array | null>();
  for (const path of paths) {
    bytes.set(
      path,
      await Deno.readFile(join(s.root, path)).catch(() => null),
    );
  }
  await then();
  const to = await entries(s, paths);
  for (const [path, content] of bytes) {
    await Deno.remove(join(s.root, path), { recursive: true }).catch(() => undefined);
    if (content !== null) await put(s.root, path, content);
  }
  return {
    writes: paths.map((path) => ({ path, from: from.get(path) ?? null, to: to.get(path) ?? null })),
    prune: [],
    made: [],
  };
}

Deno.test("carryOut() puts each file in place by a rename: a reader never sees a short file", async () => {
  const old = new Uint8Array(4 * 1024 * 1024).fill(0x61);
  const big = new Uint8Array(24 * 1024 * 1024).fill(0x62);
  await using s = await setup({ "big.bin": old });
  const plan = await planTo(s, ["big.bin"], () => Deno.writeFile(join(s.root, "big.bin"), big));
  const sizes = new Set<number>();
  let done = false;
  const watching = (async () => {
    while (!done) {
      const info = await Deno.lstat(join(s.root, "big.bin")).catch(() => null);
      sizes.add(info?.size ?? -1);
    }
  })();
  await carryOut(s.sys, s.repo, { plan: plan, ...s.store, tag: "t" });
  done = true;
  await watching;
  assert.deepEqual([...sizes].filter((n) => n !== old.length && n !== big.length), []);
  assert.equal((await Deno.lstat(join(s.root, "big.bin"))).size, big.length);
});

Deno.test("carryOut() keeps an existing file's permission bits and follows git's executable bit", async () => {
  await using s = await setup({ "a.sh": "one\n", "b.txt": "bee\n" });
  await Deno.chmod(join(s.root, "a.sh"), 0o640);
  const plan = await planTo(s, ["a.sh", "b.txt", "new.txt"], async () => {
    await Deno.writeTextFile(join(s.root, "a.sh"), "two\n");
    await Deno.chmod(join(s.root, "a.sh"), 0o750);
    await Deno.writeTextFile(join(s.root, "new.txt"), "new\n");
    await Deno.remove(join(s.root, "b.txt"));
  });
  await Deno.chmod(join(s.root, "a.sh"), 0o640);
  const report = await carryOut(s.sys, s.repo, { plan: plan, ...s.store, tag: "t" });
  assert.deepEqual(report.written.sort(), ["a.sh", "b.txt", "new.txt"]);
  assert.equal((await Deno.lstat(join(s.root, "a.sh"))).mode! & 0o777, 0o750);
  assert.equal(await Deno.readTextFile(join(s.root, "a.sh")), "two\n");
  assert.equal(await Deno.readTextFile(join(s.root, "new.txt")), "new\n");
  await assert.rejects(Deno.lstat(join(s.root, "b.txt")), Deno.errors.NotFound);
});

Deno.test("carryOut() writes nothing when a path changed under the plan or something is in the way", async () => {
  await using s = await setup({ "a.txt": "one\n", "b.txt": "bee\n" });
  const plan = await planTo(s, ["a.txt", "b.txt", "c.txt"], async () => {
    for (const name of ["a", "b", "c"]) {
      await Deno.writeTextFile(join(s.root, `${name}.txt`), "x\n");
    }
  });
  await Deno.writeTextFile(join(s.root, "b.txt"), "the user's\n");
  const before = await treeFingerprint(s.root);
  await assert.rejects(carryOut(s.sys, s.repo, { plan: plan, ...s.store, tag: "t" }), (error) => {
    assert.ok(error instanceof PlanBlocked);
    assert.deepEqual(error.paths, ["b.txt"]);
    return true;
  });
  assert.deepEqual(await treeFingerprint(s.root), before);
  // A folder holding a file of the user's where the plan makes a file.
  await Deno.writeTextFile(join(s.root, "b.txt"), "bee\n");
  await put(s.root, "c.txt/mine", "mine\n");
  const blocked = await treeFingerprint(s.root);
  await assert.rejects(
    carryOut(s.sys, s.repo, { plan: plan, ...s.store, tag: "t" }),
    /in the way: "c.txt"/,
  );
  assert.deepEqual(await treeFingerprint(s.root), blocked);
});

Deno.test("a plan cut short is finished by carrying it out again, undone by its reverse", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 6; i++) files[`f${i}.txt`] = `file ${i}\n`;
  await using s = await setup({ ...files, "keep.txt": "mine\n" });
  const paths = [...Object.keys(files), "dir/new.txt"];
  const plan = await planTo(s, paths, async () => {
    for (let i = 0; i < 6; i++) {
      await Deno.writeTextFile(join(s.root, `f${i}.txt`), `changed ${i}\n`);
    }
    await put(s.root, "dir/new.txt", "new\n");
  });
  plan.made = ["dir"];
  await Deno.remove(join(s.root, "dir"));
  const before = await treeFingerprint(s.root);
  const stop = new Error("killed");
  await assert.rejects(
    carryOut(s.sys, s.repo, {
      plan: plan,
      ...s.store,
      tag: "t",
      afterEach: (count) => count === 3 ? Promise.reject(stop) : Promise.resolve(),
    }),
    (error) => error === stop,
  );
  const { readPathStates, tracksFileMode } = await import("../../src/vcs/worktree_state.ts");
  const now = await readPathStates(s.sys, s.repo, { ...s.store, paths });
  const fileMode = await tracksFileMode(s.sys, s.repo, s.store);
  const progress = progressOf(plan, now, { fileMode });
  assert.equal(progress.done.length, 3);
  assert.equal(progress.neither.length, 0);
  // The reverse takes back the three written, leaves the rest, and prunes the folder it made.
  const back = await carryOut(s.sys, s.repo, { plan: reversePlan(plan), ...s.store, tag: "t" });
  assert.equal(back.written.length, 3);
  assert.deepEqual(await treeFingerprint(s.root), before);
  // Carried out again from the start and cut again, then finished.
  await carryOut(s.sys, s.repo, {
    plan: plan,
    ...s.store,
    tag: "t",
    afterEach: (count) => count === 2 ? Promise.reject(stop) : Promise.resolve(),
  }).catch(() => undefined);
  const rest = await carryOut(s.sys, s.repo, { plan: plan, ...s.store, tag: "t" });
  assert.equal(rest.already.length, 2);
  assert.equal(rest.written.length, paths.length - 2);
  assert.equal(await Deno.readTextFile(join(s.root, "dir/new.txt")), "new\n");
  assert.equal(await Deno.readTextFile(join(s.root, "keep.txt")), "mine\n");
});

Deno.test("carryOut() works with scratch space on another file system (a copy beside each file)", async () => {
  await using s = await setup({ "a.txt": "one\n" });
  const shm = await Deno.makeTempDir({ dir: "/dev/shm", prefix: "pitroom-scratch-" }).catch(() =>
    null
  );
  if (shm === null) return; // No second file system here.
  try {
    const plan = await planTo(s, ["a.txt", "sub/b.txt"], async () => {
      await Deno.writeTextFile(join(s.root, "a.txt"), "two\n");
      await put(s.root, "sub/b.txt", "bee\n");
    });
    await carryOut(s.sys, s.repo, { plan: plan, ...s.store, scratchDir: shm, tag: "t" });
    assert.equal(await Deno.readTextFile(join(s.root, "a.txt")), "two\n");
    assert.equal(await Deno.readTextFile(join(s.root, "sub/b.txt")), "bee\n");
    const names = [...Deno.readDirSync(s.root)].map((e) => e.name).sort();
    assert.deepEqual(names, [".git", "a.txt", "sub"]);
  } finally {
    await Deno.remove(shm, { recursive: true });
  }
});
