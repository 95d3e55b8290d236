/**
 * A revert undoes only what the worker's recorded tool calls could have changed: the user's edits
 * while a background write run works, and after a lost run died, are listed apart and kept
 * (`--all` takes them too); a run that changed nothing has nothing to revert; SIGKILL during a
 * lost run's capture or during a revert leaves the user's files, index, HEAD, refs and stash as
 * they were, and the next revert finishes. Every case compares bytes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { statePaths } from "../../src/store/paths.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { loadRecord } from "../../src/store/runs.ts";
import { RefusedError } from "../../src/sys/errors.ts";
import { renderReport } from "../../src/cli/report.ts";
import { main } from "../../src/cli/main.ts";
import { type CrashWorld, crashWorld, pidAlive, startChild } from "../support/crash_world.ts";
import { exists } from "../../src/sys/fs.ts";
import { END_SLACK_MS } from "../../src/engine/tree/attribute.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { git, waitFor } from "../support/temp.ts";

type World = CrashWorld;
const world = crashWorld;

/** The bytes of every file of the work tree (`.git` aside). */
async function files(root: string, dir = ""): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  for await (const entry of Deno.readDir(join(root, dir))) {
    const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (rel === ".git") continue;
    if (entry.isDirectory) Object.assign(out, await files(root, rel));
    else out[rel] = await Deno.readFile(join(root, rel));
  }
  return out;
}

/** The user's files (bytes), index (bytes), HEAD, refs and stash. */
async function userState(repo: string) {
  return {
    files: await files(repo),
    index: await Deno.readFile(join(repo, ".git/index")),
    head: await git(repo, "rev-parse", "HEAD"),
    refs: await git(repo, "for-each-ref"),
    stash: await git(repo, "stash", "list"),
  };
}

const text = (s: string) => new TextEncoder().encode(s);

/** The id of the only run of the state dir, once its record exists. */
async function onlyRun(w: World): Promise<string> {
  const paths = statePaths(w.state);
  let id = "";
  await waitFor(async () => {
    for await (const entry of Deno.readDir(paths.runs)) id = entry.name;
    return id !== "" && (await loadRecord(paths, id).catch(() => null)) !== null;
  }, { timeoutMs: 30_000, what: "the run's record" });
  return id;
}

/** Waits until the run's events file holds a tool call naming `target`. */
async function recorded(w: World, id: string, target: string): Promise<void> {
  const events = statePaths(w.state).run(id).events;
  await waitFor(async () => {
    const lines = await Deno.readTextFile(events).catch(() => "");
    return lines.split("\n").some((l) => l.includes(`"worker.tool_call"`) && l.includes(target));
  }, { timeoutMs: 30_000, what: `the tool call on ${target} in the events file` });
}

/**
 * Waits until the file system's clock (which lags the wall clock by up to a kernel tick) is past
 * the run's last recorded event and the slack a call's window keeps after its end
 * (`END_SLACK_MS`), so an edit made now is outside every call of the worker: on a fast machine the
 * test gets here a few ms after the worker's last call, and an edit then is the call's own.
 */
async function pastLastEvent(w: World, id: string): Promise<void> {
  const paths = statePaths(w.state).run(id);
  const text = await Deno.readTextFile(paths.events).catch(() => "");
  const last = Math.max(...text.split("\n").filter(Boolean).map((l) => JSON.parse(l).time));
  const probe = join(w.marks, "clock");
  await waitFor(async () => {
    await Deno.writeTextFile(probe, "");
    return (await Deno.stat(probe)).mtime!.getTime() > last + END_SLACK_MS;
  }, { timeoutMs: 5_000, what: "the file system's clock to pass the last event" });
}

/** A background write run (a child Pitroom) whose worker edits a.txt, adds w.txt, then waits. */
async function backgroundRun(w: World, extra: FakeStep[] = []) {
  const steps: FakeStep[] = [
    { writeFile: "a.txt", content: "worker\n" },
    { writeFile: "w.txt", content: "w\n" },
    ...extra,
    { writeFile: join(w.marks, "working"), content: "", untold: true },
    { waitFile: join(w.marks, "go") },
    { answer: "done" },
  ];
  const run = startChild({ stateDir: w.state, repo: w.repo, action: "run", mode: "write", steps });
  await waitFor(() => exists(join(w.marks, "working")), {
    timeoutMs: 30_000,
    what: "the worker to work",
  });
  const id = await onlyRun(w);
  await recorded(w, id, "w.txt");
  // The run's watch of the tree has kept the worker's versions (a kill before that leaves a lost
  // run without them: attributed by the calls alone, a case of its own).
  const versions = statePaths(w.state).run(id).versions;
  await waitFor(async () => {
    const text = await Deno.readTextFile(versions).catch(() => "");
    return text.includes('"p":"a.txt"') && text.includes('"p":"w.txt"');
  }, { timeoutMs: 30_000, what: "the watch's versions of the worker's files" });
  return { ...run, id };
}

/** Kills a background run's Pitroom with SIGKILL; returns the lost record once its worker died. */
async function killRun(w: World, run: Awaited<ReturnType<typeof backgroundRun>>) {
  run.child.kill("SIGKILL");
  await run.child.status;
  await run.text;
  const record = await w.engine.get(run.id);
  assert.equal(record.state, "lost");
  const worker = record.attempts.at(-1)!.workerPid!;
  await waitFor(() => !pidAlive(worker), { timeoutMs: 10_000, what: "the orphan worker to die" });
  return record;
}

/** The user's work after the run: keep.txt edited again, a.txt edited on top, a new file. */
async function userEdits(w: World): Promise<void> {
  await Deno.writeTextFile(join(w.repo, "keep.txt"), "keep\nmine\nlater\n");
  await Deno.writeTextFile(join(w.repo, "mine.txt"), "made by me\n");
}

/** What the tree must hold after a revert that kept the user's later work. */
function keptUserWork(before: Awaited<ReturnType<typeof userState>>) {
  const want = { ...before, files: { ...before.files } };
  want.files["keep.txt"] = text("keep\nmine\nlater\n");
  want.files["mine.txt"] = text("made by me\n");
  return want;
}

Deno.test("a lost write run's revert undoes the worker's calls only, never the user's later work, even in a file both changed", async () => {
  await using w = await world();
  const before = await userState(w.repo);
  const run = await backgroundRun(w);
  await killRun(w, run);
  await pastLastEvent(w, run.id);
  await userEdits(w);
  // A file the worker wrote and the user then changed again holds the user's work too.
  await Deno.writeTextFile(join(w.repo, "w.txt"), "w\nand mine\n");

  const record = await w.engine.revert(run.id);
  // w.txt is the worker's and the user's (its watch kept the worker's version before it died):
  // taking the worker's out would delete the user's lines too, so revert leaves it, named.
  assert.deepEqual(record.changes!.files.map((f) => [f.path, f.shared]), [
    ["a.txt", undefined],
    ["w.txt", "split"],
  ]);
  assert.deepEqual(record.changes!.others!.map((f) => f.path).sort(), [
    "keep.txt",
    "mine.txt",
    "w.txt",
  ]);
  assert.deepEqual(record.changes!.left!.map((f) => f.path), ["w.txt"]);
  const want = keptUserWork(before);
  want.files["w.txt"] = text("w\nand mine\n");
  assert.deepEqual(await userState(w.repo), want);
  assert.match(renderReport(record, Date.now()), /changed while the run worked, not by a tool/);

  // --all takes the rest too, back to the state the run began in.
  const all = await w.engine.revert(run.id, { all: true });
  assert.equal(all.changes!.othersReverted, true);
  assert.deepEqual(await userState(w.repo), before);
});

Deno.test("a user's edits during a background write run are listed apart and survive its revert", async () => {
  await using w = await world();
  const before = await userState(w.repo);
  const run = await backgroundRun(w);
  await userEdits(w);
  await Deno.writeTextFile(join(w.marks, "go"), "");
  await run.child.status;
  await run.text;
  const paths = statePaths(w.state);
  const record = await loadRecord(paths, run.id);
  assert.equal(record.state, "done", record.message);
  assert.deepEqual(record.changes!.files.map((f) => f.path), ["a.txt", "w.txt"]);
  assert.deepEqual(record.changes!.others!.map((f) => f.path), ["keep.txt", "mine.txt"]);
  const report = renderReport(record, Date.now());
  assert.match(report, /changed 2 file\(s\)/);
  assert.match(
    report,
    /changed while the run worked, not by a tool the worker called[^\n]*:\n {2}M keep\.txt\n {2}A mine\.txt/,
  );
  // The run's patch is the worker's alone.
  const patch = await Deno.readTextFile(paths.run(run.id).patch);
  assert.match(patch, /\+worker/);
  assert.doesNotMatch(patch, /keep\.txt|mine\.txt/);

  // Through the CLI: `revert --json` names what it left alone, `revert --all` takes it too.
  const cli = testSys({ stateDir: w.state, cwd: w.repo });
  assert.equal(await main(["revert", run.id, "--json"], cli), 0);
  const { repo: _repo, ...json } = JSON.parse(cli.stdoutText());
  assert.deepEqual(json, {
    id: run.id,
    reverted: ["a.txt", "w.txt"],
    leftAlone: ["keep.txt", "mine.txt"],
  });
  assert.deepEqual(await userState(w.repo), keptUserWork(before));
  await assert.rejects(w.engine.revert(run.id), /reverted already/);
  const all = testSys({ stateDir: w.state, cwd: w.repo });
  assert.equal(await main(["revert", run.id, "--all"], all), 0);
  assert.match(all.stdoutText(), /^reverted 4 file\(s\)/);
  assert.deepEqual(await userState(w.repo), before);
});

Deno.test("a user's edit right on top of the worker's, during a background run: shared, and revert leaves it, named", async () => {
  await using w = await world();
  const before = await userState(w.repo);
  const run = await backgroundRun(w);
  await pastLastEvent(w, run.id);
  // Right on top of the worker's edit, once the run's watch has read it (its process may be slow
  // to, on a busy machine: an edit before that hides the worker's version, and the file is then
  // judged by the calls alone, as without a watch).
  const versions = statePaths(w.state).run(run.id).versions;
  await waitFor(async () => {
    const text = await Deno.readTextFile(versions).catch(() => "");
    return text.split("\n").some((line) => line.includes('"p":"a.txt"'));
  }, { timeoutMs: 10_000, what: "the watch to read the worker's a.txt" });
  await Deno.writeTextFile(join(w.repo, "a.txt"), "worker\nand mine\n");
  await Deno.writeTextFile(join(w.marks, "go"), "");
  await run.child.status;
  await run.text;
  const paths = statePaths(w.state);
  const record = await loadRecord(paths, run.id);
  assert.deepEqual(record.changes!.files.map((f) => [f.path, f.shared]), [
    ["a.txt", "split"],
    ["w.txt", undefined],
  ]);
  assert.deepEqual(record.changes!.others!.map((f) => [f.path, f.shared]), [["a.txt", "split"]]);
  // The patch holds the worker's line, not the user's.
  const patch = await Deno.readTextFile(paths.run(run.id).patch);
  assert.match(patch, /-one\n\+worker\n/);
  assert.doesNotMatch(patch, /and mine/);
  // The user's line sits right under the worker's: revert cannot take one without the other.
  const reverted = await w.engine.revert(run.id);
  assert.deepEqual(reverted.changes!.left!.map((f) => f.path), ["a.txt"]);
  const kept = reverted.changes!.left![0]!.kept!;
  assert.equal(await Deno.readTextFile(join(kept, "now")), "worker\nand mine\n");
  assert.equal(await Deno.readTextFile(join(kept, "without-worker")), "one\n");
  const want = { ...before, files: { ...before.files, "a.txt": text("worker\nand mine\n") } };
  assert.deepEqual(await userState(w.repo), want);
});

Deno.test("a worker's shell command can change any file: then the user's edits count as its own", async () => {
  await using w = await world();
  const run = await backgroundRun(w, [{ run: "sh -c true" }]);
  await userEdits(w);
  await Deno.writeTextFile(join(w.marks, "go"), "");
  await run.child.status;
  await run.text;
  const record = await loadRecord(statePaths(w.state), run.id);
  assert.deepEqual(record.changes!.files.map((f) => f.path), [
    "a.txt",
    "keep.txt",
    "mine.txt",
    "w.txt",
  ]);
  assert.equal(record.changes!.others, undefined);
});

for (const sneaky of [false, true]) {
  Deno.test(
    `a user's edits during a background read run are kept, not a violation${
      sneaky ? " (the worker's own write is undone)" : ""
    }`,
    async () => {
      // Without the sandbox, so that the worker's own write reaches the tree.
      await using w = await world(sneaky ? { sandbox: "off" } : {});
      const before = await userState(w.repo);
      const steps: FakeStep[] = [
        ...(sneaky ? [{ writeFile: "sneaky.txt", content: "s\n" }] : []),
        { writeFile: join(w.marks, "working"), content: "", untold: true },
        { waitFile: join(w.marks, "go") },
        { answer: "read it" },
      ];
      const run = startChild({
        stateDir: w.state,
        repo: w.repo,
        action: "run",
        mode: "read",
        steps,
      });
      await waitFor(() => exists(join(w.marks, "working")), {
        timeoutMs: 30_000,
        what: "the worker to work",
      });
      const id = await onlyRun(w);
      if (sneaky) await recorded(w, id, "sneaky.txt");
      await userEdits(w);
      await Deno.writeTextFile(join(w.marks, "go"), "");
      await run.child.status;
      await run.text;
      const record = await loadRecord(statePaths(w.state), id);
      assert.equal(record.outcome, sneaky ? "read_only_violation" : "ok", record.message);
      assert.deepEqual(
        record.changes?.files.map((f) => f.path) ?? [],
        sneaky ? ["sneaky.txt"] : [],
      );
      // In the sandbox the worker could write none of the tree: nothing is compared after it,
      // so the user's edits are not even listed.
      assert.deepEqual(
        record.changes?.others?.map((f) => f.path),
        record.attempts[0]!.sandbox === "none" ? ["keep.txt", "mine.txt"] : undefined,
      );
      assert.deepEqual(await userState(w.repo), keptUserWork(before));
    },
  );
}

async function inProcess(w: World, steps: FakeStep[], continues?: string) {
  w.script.steps = steps;
  // A follow-up keeps the earlier run's mode and worker.
  return await w.engine.run({
    task: "t",
    timeoutMs: 30_000,
    ...(continues ? { continue: continues } : { mode: "write", worker: "opencode" }),
  });
}

async function refusedNothing(promise: Promise<RunRecord>): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof RefusedError);
    assert.equal(error.exit, 3);
    assert.match(error.message, /changed no file/);
    return true;
  });
}

Deno.test("a finished write run that changed no files has nothing to revert (exit 3)", async () => {
  await using w = await world();
  const record = await inProcess(w, [{ answer: "nothing to do" }]);
  assert.equal(record.state, "done");
  await userEdits(w);
  const after = await userState(w.repo);
  await refusedNothing(w.engine.revert(record.id));
  assert.deepEqual(await userState(w.repo), after);
});

Deno.test("reverting a no-change follow-up does not bring back an edit that was undone", async () => {
  await using w = await world();
  const first = await inProcess(w, [
    { session: "s1" },
    { writeFile: "a.txt", content: "worker\n" },
    { answer: "x" },
  ]);
  const follow = await inProcess(w, [{ answer: "looked again" }], first.id);
  assert.equal(follow.state, "done", follow.message);
  await w.engine.revert(first.id);
  const undone = await userState(w.repo);
  assert.deepEqual(undone.files["a.txt"], text("one\n"));
  await refusedNothing(w.engine.revert(follow.id));
  assert.deepEqual(await userState(w.repo), undone);
});

Deno.test("kill -9 during a lost run's capture: nothing changed, the next revert finishes", async () => {
  await using w = await world();
  const before = await userState(w.repo);
  const run = await backgroundRun(w);
  await killRun(w, run);
  await userEdits(w);
  const edited = await userState(w.repo);
  const reverting = startChild({
    stateDir: w.state,
    repo: w.repo,
    action: "revert",
    runId: run.id,
    pause: "capturing",
  });
  await waitFor(() => exists(join(w.state, "paused-capturing")), {
    timeoutMs: 30_000,
    what: "the capture to pause",
  });
  reverting.child.kill("SIGKILL");
  await reverting.child.status;
  await reverting.text;
  assert.deepEqual(await userState(w.repo), edited);
  const record = await w.engine.revert(run.id);
  assert.deepEqual(record.changes!.files.map((f) => f.path), ["a.txt", "w.txt"]);
  assert.deepEqual(await userState(w.repo), keptUserWork(before));
});

Deno.test("kill -9 during a revert: the user's state is intact and the next revert finishes", async () => {
  await using w = await world();
  const before = await userState(w.repo);
  const run = await backgroundRun(w);
  await userEdits(w);
  await Deno.writeTextFile(join(w.marks, "go"), "");
  await run.child.status;
  await run.text;
  const worked = await userState(w.repo);
  const reverting = startChild({
    stateDir: w.state,
    repo: w.repo,
    action: "revert",
    runId: run.id,
    pause: "reverting",
  });
  await waitFor(() => exists(join(w.state, "paused-reverting")), {
    timeoutMs: 30_000,
    what: "the revert to pause",
  });
  reverting.child.kill("SIGKILL");
  await reverting.child.status;
  await reverting.text;
  assert.deepEqual(await userState(w.repo), worked);
  // A revert cut short after its first file: the next one finishes only the rest.
  await Deno.writeTextFile(join(w.repo, "a.txt"), "one\n");
  await w.engine.revert(run.id);
  assert.deepEqual(await userState(w.repo), keptUserWork(before));
});
