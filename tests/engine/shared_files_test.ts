/**
 * A file the user and the worker both change during a background write run: the run keeps the
 * file's versions as it works, so its patch holds only the worker's lines and revert takes only
 * those out (three-way, against the version just before the worker's edit), keeping the user's,
 * whether the user edited before the worker's edit, after it, or both. A branch switch, a stash
 * or a commit while the run works is named, and revert then needs --force. Every case compares
 * bytes; the worker edits the file as an edit tool does (reading it as it is then).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { renderReport } from "../../src/cli/report.ts";
import { statePaths } from "../../src/store/paths.ts";
import { loadRecord } from "../../src/store/runs.ts";
import { exists } from "../../src/sys/fs.ts";
import { startChild } from "../support/crash_world.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { git, tempDir, tempRepo, waitFor } from "../support/temp.ts";

const GREET = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
const edit = (text: string, from: string, to: string) => text.replace(from, to);

async function world() {
  const state = await tempDir("pitroom-state-");
  const marks = await tempDir("pitroom-marks-");
  await Deno.writeTextFile(
    join(state.path, "no-config.json"),
    JSON.stringify({ sandbox: { mode: "auto", writable: [marks.path] } }),
  );
  const repo = await tempRepo({ "src/greet.ts": GREET, "other.txt": "other\n" });
  await git(repo.path, "checkout", "-q", "-b", "feat");
  await Deno.writeTextFile(
    join(repo.path, "src/greet.ts"),
    edit(GREET, "line 3", "line 3 on feat"),
  );
  await git(repo.path, "commit", "-q", "-am", "feat");
  await git(repo.path, "checkout", "-q", "-");
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  return {
    sys,
    engine: createEngine(sys, { dir: repo.path }),
    repo: repo.path,
    state: state.path,
    marks: marks.path,
    mark: (name: string) => join(marks.path, name),
    read: (path: string) => Deno.readTextFile(join(repo.path, path)),
    write: (path: string, text: string) => Deno.writeTextFile(join(repo.path, path), text),
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
      await marks[Symbol.asyncDispose]();
    },
  };
}
type World = Awaited<ReturnType<typeof world>>;

/** Waits until the wall clock and the file system's clock are both past `ms` (a few ms). */
async function clockPast(w: World, ms: number): Promise<void> {
  const probe = join(w.marks, "clock");
  await waitFor(async () => {
    await Deno.writeTextFile(probe, "");
    return Date.now() > ms && (await Deno.stat(probe)).mtime!.getTime() > ms;
  }, { timeoutMs: 5_000, what: "the clock to pass a moment" });
}

/**
 * A background write run whose worker waits for the mark `edit`, edits line 8 of greet.ts as it
 * is then, leaves the mark `edited` and waits for `go`.
 */
function startRun(w: World) {
  const steps: FakeStep[] = [
    { writeFile: w.mark("ready"), content: "", untold: true },
    { waitFile: w.mark("edit") },
    { editFile: "src/greet.ts", old: "line 8", new: "line 8 by the worker" },
    { writeFile: "new.txt", content: "worker's new file\n" },
    { writeFile: w.mark("edited"), content: "", untold: true },
    { waitFile: w.mark("go") },
    { answer: "done" },
  ];
  const run = startChild({ stateDir: w.state, repo: w.repo, action: "run", mode: "write", steps });
  return run;
}

async function waitMark(w: World, name: string): Promise<void> {
  await waitFor(() => exists(w.mark(name)), { timeoutMs: 30_000, what: `the mark ${name}` });
}

/** Lets the worker edit once the clock is past the user's edit, then waits for its edit. */
async function workerEdits(w: World): Promise<void> {
  await clockPast(w, Date.now() + 50);
  await Deno.writeTextFile(w.mark("edit"), "");
  await waitMark(w, "edited");
  await clockPast(w, Date.now() + 50);
}

async function finish(w: World, run: ReturnType<typeof startRun>) {
  await Deno.writeTextFile(w.mark("go"), "");
  await run.child.status;
  const id = JSON.parse((await run.text).split("\n")[0]!).id as string;
  const record = await loadRecord(statePaths(w.state), id);
  assert.equal(record.state, "done", record.message);
  return { id, record, patch: await Deno.readTextFile(statePaths(w.state).run(id).patch) };
}

Deno.test("the user's edit before the worker's edit of the same file (the issue's case): only the worker's line is its own", async () => {
  await using w = await world();
  const run = startRun(w);
  await waitMark(w, "ready");
  const mine = edit(GREET, "line 2", "line 2 mine");
  await w.write("src/greet.ts", mine);
  await workerEdits(w);
  const both = edit(mine, "line 8", "line 8 by the worker");
  assert.equal(await w.read("src/greet.ts"), both);
  const { id, record, patch } = await finish(w, run);
  const greet = record.changes!.files.find((f) => f.path === "src/greet.ts")!;
  assert.equal(greet.shared, "split");
  assert.deepEqual([greet.added, greet.removed], [1, 1]);
  assert.match(patch, /-line 8\n\+line 8 by the worker\n/);
  assert.doesNotMatch(patch, /line 2 mine/);
  assert.match(renderReport(record, Date.now()), /src\/greet\.ts/);
  const reverted = await w.engine.revert(id);
  assert.equal(reverted.changes!.left, undefined);
  assert.equal(await w.read("src/greet.ts"), mine);
  assert.equal(await exists(join(w.repo, "new.txt")), false);
});

Deno.test("the user's edits before and after the worker's edit: revert keeps both of the user's", async () => {
  await using w = await world();
  const run = startRun(w);
  await waitMark(w, "ready");
  const mine = edit(GREET, "line 2", "line 2 mine");
  await w.write("src/greet.ts", mine);
  await workerEdits(w);
  const later = edit(
    edit(mine, "line 8", "line 8 by the worker"),
    "line 12",
    "line 12 mine, later",
  );
  await w.write("src/greet.ts", later);
  const { id, patch, record } = await finish(w, run);
  assert.equal(record.changes!.shared?.length, 1);
  assert.doesNotMatch(patch, /mine/);
  await w.engine.revert(id);
  assert.equal(await w.read("src/greet.ts"), edit(mine, "line 12", "line 12 mine, later"));
  // --all takes the rest too, back to how the run found the file.
  await w.engine.revert(id, { all: true });
  assert.equal(await w.read("src/greet.ts"), GREET);
});

Deno.test("a branch switch while the run works: named, revert needs --force, then keeps the branch's version", async () => {
  await using w = await world();
  const run = startRun(w);
  await waitMark(w, "ready");
  await git(w.repo, "checkout", "-q", "feat");
  const onFeat = edit(GREET, "line 3", "line 3 on feat");
  assert.equal(await w.read("src/greet.ts"), onFeat);
  await workerEdits(w);
  const { id, record, patch } = await finish(w, run);
  assert.ok(record.changes!.moved?.head, "HEAD moved");
  assert.match(renderReport(record, Date.now()), /HEAD moved/);
  assert.doesNotMatch(patch, /on feat/);
  await assert.rejects(w.engine.revert(id), /without `force`: while it worked, HEAD moved/);
  assert.equal(await w.read("src/greet.ts"), edit(onFeat, "line 8", "line 8 by the worker"));
  await w.engine.revert(id, { force: true });
  assert.equal(await w.read("src/greet.ts"), onFeat);
  assert.equal((await git(w.repo, "rev-parse", "--abbrev-ref", "HEAD")).trim(), "feat");
});

for (const action of ["stash", "commit"] as const) {
  Deno.test(`git ${action} while the run works: named, and revert needs --force`, async () => {
    await using w = await world();
    await w.write("other.txt", "other, mine\n");
    const run = startRun(w);
    await waitMark(w, "ready");
    if (action === "stash") await git(w.repo, "stash", "-q");
    else await git(w.repo, "commit", "-q", "-am", "mine");
    const head = (await git(w.repo, "rev-parse", "HEAD")).trim();
    await workerEdits(w);
    const { id, record } = await finish(w, run);
    const moved = record.changes!.moved!;
    if (action === "commit") assert.equal(moved.head?.to, head);
    else assert.equal(moved.index, true);
    await assert.rejects(w.engine.revert(id), /without `force`/);
    const reverted = await w.engine.revert(id, { force: true });
    assert.equal(reverted.changes!.reverted, true);
    assert.equal(await w.read("src/greet.ts"), GREET);
    // What git holds of the user's is as git left it: the stash, or the commit.
    if (action === "stash") {
      assert.equal(await w.read("other.txt"), "other\n");
      assert.match(await git(w.repo, "stash", "list"), /stash@\{0\}/);
    } else {
      assert.equal(await w.read("other.txt"), "other, mine\n");
      assert.equal((await git(w.repo, "rev-parse", "HEAD")).trim(), head);
    }
  });
}

Deno.test("files dated in the future: the worker's edit and the user's hand-dated edits are told apart", async () => {
  await using w = await world();
  const future = new Date(Date.now() + 86_400_000);
  for (const path of ["src/greet.ts", "other.txt"]) {
    await Deno.utime(join(w.repo, path), future, future);
  }
  const run = startRun(w);
  await waitMark(w, "ready");
  // The user's edits keep a date in the future (as `cp -p` or an archive would).
  await w.write("other.txt", "other, mine\n");
  await Deno.utime(join(w.repo, "other.txt"), future, future);
  await workerEdits(w);
  const later = edit(edit(GREET, "line 8", "line 8 by the worker"), "line 12", "line 12 mine");
  await w.write("src/greet.ts", later);
  await Deno.utime(join(w.repo, "src/greet.ts"), future, future);
  const { id, record, patch } = await finish(w, run);
  assert.deepEqual(record.changes!.files.map((f) => [f.path, f.shared]), [
    ["new.txt", undefined],
    ["src/greet.ts", "split"],
  ]);
  assert.deepEqual(record.changes!.others!.map((f) => f.path), ["other.txt", "src/greet.ts"]);
  assert.doesNotMatch(patch, /mine/);
  await w.engine.revert(id);
  assert.equal(await w.read("src/greet.ts"), edit(GREET, "line 12", "line 12 mine"));
  assert.equal(await w.read("other.txt"), "other, mine\n");
});

Deno.test("a lost write run (its Pitroom killed) is still split by the versions its watch kept", async () => {
  await using w = await world();
  const run = startRun(w);
  await waitMark(w, "ready");
  const mine = edit(GREET, "line 2", "line 2 mine");
  await w.write("src/greet.ts", mine);
  await workerEdits(w);
  const runs = statePaths(w.state).runs;
  let id = "";
  await waitFor(async () => {
    for await (const entry of Deno.readDir(runs)) id = entry.name;
    const events = await Deno.readTextFile(statePaths(w.state).run(id).events).catch(() => "");
    return events.includes('"kind":"edit"');
  }, { timeoutMs: 30_000, what: "the worker's edit in the events file" });
  // The watch has kept the version the worker's edit left (the user's, then the worker's).
  await waitFor(async () => {
    const text = await Deno.readTextFile(statePaths(w.state).run(id).versions).catch(() => "");
    return text.split("\n").filter((l) => l.includes('"p":"src/greet.ts"')).length >= 2;
  }, { timeoutMs: 30_000, what: "the watch's version of the worker's edit" });
  run.child.kill("SIGKILL");
  await run.child.status;
  await run.text;
  const lost = await w.engine.get(id);
  assert.equal(lost.state, "lost");
  const reverted = await w.engine.revert(id);
  assert.equal(reverted.changes!.files.find((f) => f.path === "src/greet.ts")?.shared, "split");
  assert.equal(await w.read("src/greet.ts"), mine);
});
