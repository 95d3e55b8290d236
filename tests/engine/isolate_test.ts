import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunRequest } from "../../src/engine/mod.ts";
import { loadRecord } from "../../src/store/runs.ts";
import { PitroomError } from "../../src/sys/errors.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { engineWorld } from "../support/engine_world.ts";
import { git, tempRepo } from "../support/temp.ts";

/** A repository with the user's own uncommitted work: staged, unstaged and untracked. */
async function dirtyRepo() {
  const repo = await tempRepo({
    "a.txt": "one\n",
    "src/b.txt": "bee\n",
    "gone.txt": "to be deleted\n",
    ".gitignore": "node_modules/\n.env\n",
  });
  await Deno.writeTextFile(join(repo.path, "a.txt"), "one\nmine\n");
  await Deno.writeTextFile(join(repo.path, "src/b.txt"), "bee staged\n");
  await git(repo.path, "add", "src/b.txt");
  await Deno.writeTextFile(join(repo.path, "notes.txt"), "my untracked notes\n");
  await Deno.mkdir(join(repo.path, "node_modules/dep"), { recursive: true });
  await Deno.writeTextFile(join(repo.path, "node_modules/dep/index.js"), "module.exports=1\n");
  await Deno.writeTextFile(join(repo.path, ".env"), "SECRET=1\n");
  return repo;
}

async function setup(steps: (spec: RunSpec) => FakeStep[]) {
  const repo = await dirtyRepo();
  return await engineWorld(repo, steps);
}

type World = Awaited<ReturnType<typeof setup>>;

async function run(t: World, extra: Partial<RunRequest> = {}) {
  // A follow-up keeps the earlier run's mode and worker.
  const kept = extra.continue === undefined ? { mode: "isolate" as const, worker: "opencode" } : {};
  return await t.engine.run({ task: "change things", ...kept, timeoutMs: 30_000, ...extra });
}

/** What the user's repository holds that Pitroom must never touch. */
async function userState(repo: string) {
  return {
    index: await Deno.readFile(join(repo, ".git/index")),
    head: await git(repo, "rev-parse", "HEAD"),
    refs: await git(repo, "for-each-ref"),
    worktrees: await git(repo, "worktree", "list", "--porcelain"),
    status: await git(repo, "status", "--porcelain=v1", "-uall"),
    a: await Deno.readTextFile(join(repo, "a.txt")),
  };
}

Deno.test("an isolate run works in a private copy of the dirty tree and keeps a patch", async () => {
  await using t = await setup((spec) => [
    { run: `cat a.txt notes.txt src/b.txt > seen.txt` },
    { writeFile: "a.txt", content: "one\nmine\nworker\n" },
    { writeFile: "new.txt", content: "made by the worker\n" },
    { tool: "edit", target: join(spec.cwd, "a.txt") },
    { answer: "done" },
  ]);
  const userBefore = await userState(t.repo.path);
  const record = await run(t);
  assert.equal(record.state, "done", record.message);
  assert.equal(record.mode, "isolate");
  // Nothing of the user's changed: index, HEAD, refs, no registered worktree, files.
  assert.deepEqual(await userState(t.repo.path), userBefore);
  const copy = record.isolation!.copyRoot;
  assert.ok(copy.startsWith(t.sys.stateDir), "the copy lives in the state dir");
  // The copy held the user's uncommitted, staged and untracked work, but no ignored files.
  assert.equal(
    await Deno.readTextFile(join(copy, "seen.txt")),
    "one\nmine\nmy untracked notes\nbee staged\n",
  );
  await assert.rejects(Deno.stat(join(copy, ".env")), Deno.errors.NotFound);
  await assert.rejects(Deno.stat(join(copy, "node_modules")), Deno.errors.NotFound);
  assert.deepEqual(
    record.changes!.files.map((f) => `${f.status} ${f.path}`),
    ["modified a.txt", "added new.txt", "added seen.txt"],
  );
  const patch = await Deno.readTextFile(t.paths.run(record.id).patch);
  const aPart = patch.split("diff --git ").find((part) => part.startsWith("a/a.txt "))!;
  assert.match(aPart, /\+worker/);
  assert.match(aPart, /^ mine$/m, "the user's own change is context, not part of the patch");
  // The worker's steps name paths inside the copy relative to it.
  assert.equal(record.progress.last, "edit a.txt");
});

Deno.test("apply writes the patch into the user's tree without touching the index", async () => {
  await using t = await setup(() => [
    { writeFile: "a.txt", content: "one\nmine\nworker\n" },
    { writeFile: "src/c.txt", content: "new file\n" },
    { answer: "done" },
  ]);
  const record = await run(t);
  const index = await Deno.readFile(join(t.repo.path, ".git/index"));
  const { report } = await t.engine.apply(record.id);
  assert.deepEqual(report.applied.sort(), ["a.txt", "src/c.txt"]);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "a.txt")), "one\nmine\nworker\n");
  assert.equal(await Deno.readTextFile(join(t.repo.path, "src/c.txt")), "new file\n");
  assert.deepEqual(await Deno.readFile(join(t.repo.path, ".git/index")), index);
  const stored = await loadRecord(t.paths, record.id);
  assert.deepEqual(stored.isolation!.applied!.files.sort(), ["a.txt", "src/c.txt"]);
  // Applying again finds everything in place and writes nothing.
  const again = await t.engine.apply(record.id);
  assert.deepEqual(again.report.applied, []);
  assert.deepEqual(again.report.already.sort(), ["a.txt", "src/c.txt"]);
});

Deno.test("apply refuses with exit 1 when a file changed under the patch, writing nothing", async () => {
  await using t = await setup(() => [
    { writeFile: "a.txt", content: "worker rewrote it all\n" },
    { writeFile: "src/c.txt", content: "new file\n" },
    { answer: "done" },
  ]);
  const record = await run(t);
  await Deno.writeTextFile(join(t.repo.path, "a.txt"), "the user rewrote it too\n");
  const error = await t.engine.apply(record.id).catch((e) => e);
  assert.ok(error instanceof PitroomError);
  assert.equal(error.exit, 1);
  assert.match(error.message, /changed under the patch.*"a\.txt"/);
  await assert.rejects(Deno.stat(join(t.repo.path, "src/c.txt")), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "a.txt")), "the user rewrote it too\n");
  assert.equal((await loadRecord(t.paths, record.id)).isolation!.applied, undefined);
});

Deno.test("apply merges into a file the user edited elsewhere when its hunks still fit", async () => {
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`);
  await using t = await setup(() => [
    { writeFile: "long.txt", content: [...lines.slice(0, 29), "worker end"].join("\n") + "\n" },
    { answer: "done" },
  ]);
  await Deno.writeTextFile(join(t.repo.path, "long.txt"), lines.join("\n") + "\n");
  const record = await run(t);
  await Deno.writeTextFile(
    join(t.repo.path, "long.txt"),
    ["user start", ...lines.slice(1)].join("\n") + "\n",
  );
  const { report } = await t.engine.apply(record.id);
  assert.deepEqual(report.merged, ["long.txt"]);
  const text = await Deno.readTextFile(join(t.repo.path, "long.txt"));
  assert.match(text, /^user start\n/);
  assert.match(text, /worker end\n$/);
});

Deno.test("apply refuses deletions without --allow-delete (exit 3) and applies them with it", async () => {
  await using t = await setup(() => [{ run: "rm gone.txt" }, { answer: "done" }]);
  const record = await run(t);
  assert.deepEqual(record.changes!.files.map((f) => `${f.status} ${f.path}`), [
    "deleted gone.txt",
  ]);
  const error = await t.engine.apply(record.id).catch((e) => e);
  assert.ok(error instanceof PitroomError);
  assert.equal(error.exit, 3);
  assert.match(error.message, /deletes 1 file\(s\): "gone\.txt"/);
  assert.ok(await Deno.stat(join(t.repo.path, "gone.txt")));
  const { report } = await t.engine.apply(record.id, { allowDelete: true });
  assert.deepEqual(report.deleted, ["gone.txt"]);
  await assert.rejects(Deno.stat(join(t.repo.path, "gone.txt")), Deno.errors.NotFound);
});

Deno.test("discard removes the copy, keeps the patch, and a follow-up cannot reuse it", async () => {
  await using t = await setup(() => [{ writeFile: "x.txt", content: "x\n" }, { answer: "ok" }]);
  const record = await run(t);
  const discarded = await t.engine.discard(record.id);
  assert.ok(discarded.isolation!.discarded);
  await assert.rejects(Deno.stat(record.isolation!.copyRoot), Deno.errors.NotFound);
  assert.match(await Deno.readTextFile(t.paths.run(record.id).patch), /\+x/);
  // The kept patch still applies: the objects live in Pitroom's store, not in the copy.
  const { report } = await t.engine.apply(record.id);
  assert.deepEqual(report.applied, ["x.txt"]);
});

Deno.test("a follow-up reuses the copy, so the patch accumulates", async () => {
  let launches = 0;
  await using t = await setup(() => {
    launches++;
    return launches === 1
      ? [{ session: "s1" }, { writeFile: "first.txt", content: "1\n" }, { answer: "one" }]
      : [{ writeFile: "second.txt", content: "2\n" }, { answer: "two" }];
  });
  const first = await run(t);
  const second = await run(t, { continue: first.id });
  assert.equal(second.state, "done", second.message);
  assert.equal(second.isolation!.copyRoot, first.isolation!.copyRoot);
  assert.deepEqual(second.changes!.files.map((f) => f.path), ["first.txt", "second.txt"]);
});

Deno.test("--link symlinks an ignored folder into the copy and keeps it out of the patch", async () => {
  await using t = await setup(() => [
    { run: "cat node_modules/dep/index.js > used.txt" },
    { writeFile: "node_modules/dep/extra.js", content: "//\n" },
    { answer: "ok" },
  ]);
  const record = await run(t, { link: ["node_modules"] });
  assert.equal(record.state, "done", record.message);
  assert.equal(
    await Deno.readTextFile(join(record.isolation!.copyRoot, "used.txt")),
    "module.exports=1\n",
  );
  assert.deepEqual(record.changes!.files.map((f) => f.path), ["used.txt"]);
});

Deno.test("--link of a folder that is not ignored is refused", async () => {
  await using t = await setup(() => [{ answer: "ok" }]);
  const record = await run(t, { link: ["src"] });
  assert.equal(record.outcome, "failed");
  assert.match(record.message ?? "", /not an ignored folder/);
});

Deno.test("revert undoes an applied isolate run and refuses one that was never applied", async () => {
  await using t = await setup(() => [
    { writeFile: "a.txt", content: "one\nmine\nworker\n" },
    { writeFile: "w.txt", content: "w\n" },
    { answer: "done" },
  ]);
  const record = await run(t);
  await assert.rejects(t.engine.revert(record.id), /was not applied/);
  await t.engine.apply(record.id);
  await t.engine.revert(record.id);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "a.txt")), "one\nmine\n");
  await assert.rejects(Deno.stat(join(t.repo.path, "w.txt")), Deno.errors.NotFound);
});

Deno.test("--verify runs in the copy: it sees the worker's files, not the user's tree", async () => {
  await using t = await setup(() => [{ writeFile: "made.txt", content: "m\n" }, { answer: "ok" }]);
  const ok = await run(t, { verify: "test -f made.txt && test ! -e .env" });
  assert.equal(ok.outcome, "ok", ok.verify?.output);
  assert.equal(ok.verify?.ok, true);
  await assert.rejects(Deno.stat(join(t.repo.path, "made.txt")), Deno.errors.NotFound);
  const failed = await run(t, { verify: "echo checking; exit 3" });
  assert.equal(failed.outcome, "verify_failed");
  assert.equal(failed.exit, 6);
  assert.match(failed.verify?.output ?? "", /checking/);
});

Deno.test("apply -g applies a group's patches in order and stops at the first that does not apply", async () => {
  const { applyCommand } = await import("../../src/cli/apply.ts");
  let launch = 0;
  const scripts: FakeStep[][] = [
    [{ writeFile: "a.txt", content: "first\n" }, { answer: "1" }],
    [{ writeFile: "b.txt", content: "second\n" }, { answer: "2" }],
    [{ writeFile: "a.txt", content: "third wants a.txt too\n" }, { answer: "3" }],
    [{ writeFile: "c.txt", content: "fourth\n" }, { answer: "4" }],
  ];
  await using t = await setup(() => scripts[launch++]!);
  const ids: string[] = [];
  for (let i = 0; i < scripts.length; i++) ids.push((await run(t, { group: "g" })).id);
  const code = await applyCommand({ sys: t.sys, flags: { group: "g", json: true }, args: [] });
  assert.equal(code, 1);
  const out = JSON.parse(t.sys.stdoutText());
  assert.deepEqual(out.applied.map((a: { id: string }) => a.id), ids.slice(0, 2));
  assert.equal(out.failed.run, ids[2]);
  assert.match(out.failed.message, /changed under the patch.*"a\.txt"/);
  assert.deepEqual(out.notApplied, [ids[3]]);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "a.txt")), "first\n");
  assert.equal(await Deno.readTextFile(join(t.repo.path, "b.txt")), "second\n");
  await assert.rejects(Deno.stat(join(t.repo.path, "c.txt")), Deno.errors.NotFound);
});

Deno.test("apply -g keeps the order the tasks were given, even when created in the same millisecond", async () => {
  const { applyCommand } = await import("../../src/cli/apply.ts");
  const { writeRecord } = await import("../../src/store/runs.ts");
  let launch = 0;
  await using t = await setup(() => [
    { writeFile: `task${launch}.txt`, content: `${launch}\n` },
    { answer: String(launch++) },
  ]);
  const records = [];
  for (let i = 0; i < 3; i++) records.push(await run(t, { group: "same-ms" }));
  // The tasks were given in the reverse of their ids' order, all in one millisecond.
  const byId = [...records].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const [i, record] of byId.reverse().entries()) {
    await writeRecord(t.paths, { ...record, createdAt: byId[0]!.createdAt, taskIndex: i });
  }
  const code = await applyCommand({
    sys: t.sys,
    flags: { group: "same-ms", json: true },
    args: [],
  });
  assert.equal(code, 0, t.sys.stderrText());
  const applied = JSON.parse(t.sys.stdoutText()).applied.map((a: { id: string }) => a.id);
  assert.deepEqual(applied, byId.map((r) => r.id));
});
