/**
 * Crash safety: Pitroom (the engine process, which is also what a background supervisor is) or
 * the worker is killed with SIGKILL at each phase of a run, an apply or a revert. Afterwards the
 * user's files, index, HEAD, refs and stash are intact, the run is marked, and what the worker
 * did can still be reverted (in place) or applied or discarded (isolate).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { statePaths } from "../../src/store/paths.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { loadRecord } from "../../src/store/runs.ts";
import type { Mode } from "../../src/workers/types.ts";
import { type CrashWorld, crashWorld, pidAlive, startChild } from "../support/crash_world.ts";
import { exists } from "../../src/sys/fs.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { git, waitFor } from "../support/temp.ts";

type World = CrashWorld;
const world = crashWorld;

/** Everything of the user's that must survive any crash (the worker's files aside). */
async function userState(repo: string) {
  return {
    index: await Deno.readFile(join(repo, ".git/index")),
    head: await git(repo, "rev-parse", "HEAD"),
    refs: await git(repo, "for-each-ref"),
    stash: await git(repo, "stash", "list"),
    keep: await Deno.readTextFile(join(repo, "keep.txt")),
    b: await Deno.readTextFile(join(repo, "b.txt")),
    notes: await Deno.readTextFile(join(repo, "notes.txt")),
  };
}

/** Starts a run in a child Pitroom and returns once it stopped at `pause` (or `mark` exists). */
async function runUntil(
  w: World,
  options: { mode: Mode; steps: FakeStep[]; pause?: string; mark?: string },
) {
  const { child, text } = startChild({
    stateDir: w.state,
    repo: w.repo,
    action: "run",
    mode: options.mode,
    steps: options.steps,
    ...(options.pause ? { pause: options.pause } : {}),
  });
  const paused = join(w.state, `paused-${options.pause}`);
  let exited = false;
  child.status.then(() => (exited = true));
  await waitFor(async () => {
    if (exited) return true;
    if (options.mark) return await exists(options.mark);
    return await exists(paused);
  }, { timeoutMs: 30_000, what: `the child to reach ${options.pause ?? options.mark}` });
  assert.equal(exited, false, `the child ended before ${options.pause ?? options.mark}`);
  return { child, text };
}

async function killed(child: Deno.ChildProcess, text: Promise<string>): Promise<string> {
  child.kill("SIGKILL");
  await child.status;
  return await text;
}

/** The id of the world's only run (a child killed before the run's first event printed none). */
async function onlyRun(w: World): Promise<string> {
  const runs = await w.engine.list({ all: true });
  assert.equal(runs.length, 1, runs.map((r) => r.id).join(" "));
  return runs[0]!.id;
}

async function settled(w: World, id: string): Promise<RunRecord> {
  return await w.engine.get(id);
}

/**
 * Waits until the only run's events file records the worker's call on `target`: a revert undoes
 * only what recorded calls could have changed, and a call the supervisor had not read yet when
 * it was killed is not recorded.
 */
async function callsRecorded(w: World, target: string): Promise<void> {
  const paths = statePaths(w.state);
  await waitFor(async () => {
    for (const entry of Deno.readDirSync(paths.runs)) {
      const lines = await Deno.readTextFile(paths.run(entry.name).events).catch(() => "");
      if (lines.includes(`"target":"${target}"`)) return true;
    }
    return false;
  }, { timeoutMs: 10_000, what: `the worker's call on ${target} in the events file` });
}

/** The worker edits a.txt, adds w.txt, says it is there, then waits for a go that never comes. */
function workingSteps(w: World): FakeStep[] {
  return [
    { writeFile: "a.txt", content: "worker\n" },
    { writeFile: "w.txt", content: "w\n" },
    { writeFile: join(w.marks, "working"), content: "", untold: true },
    { waitFile: join(w.marks, "go") },
    { answer: "done" },
  ];
}

for (const mode of ["write", "isolate"] as const) {
  Deno.test(`kill -9 of Pitroom at the snapshot (${mode}): nothing changed, the run is lost`, async () => {
    await using w = await world();
    const before = await userState(w.repo);
    const { child, text } = await runUntil(w, { mode, steps: workingSteps(w), pause: "snapshot" });
    await killed(child, text);
    const id = await onlyRun(w);
    const record = await settled(w, id);
    assert.equal(record.state, "lost");
    assert.deepEqual(await userState(w.repo), before);
    assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "one\n");
    if (mode === "isolate") {
      await assert.rejects(w.engine.apply(id), /changed no file/);
      assert.ok((await w.engine.discard(id)).isolation!.discarded);
    } else {
      await assert.rejects(w.engine.revert(id), /changed no file/);
    }
  });

  Deno.test(`kill -9 of Pitroom while the worker runs (${mode}): lost, worker killed, work recoverable`, async () => {
    await using w = await world();
    const before = await userState(w.repo);
    const { child, text } = await runUntil(w, {
      mode,
      steps: workingSteps(w),
      mark: join(w.marks, "working"),
    });
    await callsRecorded(w, "w.txt");
    await killed(child, text);
    const id = await onlyRun(w);
    const record = await settled(w, id);
    assert.equal(record.state, "lost");
    const workerPid = record.attempts.at(-1)!.workerPid!;
    await waitFor(() => !pidAlive(workerPid), { timeoutMs: 10_000, what: "the orphan to die" });
    assert.deepEqual(await userState(w.repo), before);
    if (mode === "write") {
      assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "worker\n");
      await w.engine.revert(id);
      assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "one\n");
      assert.equal(await exists(join(w.repo, "w.txt")), false);
    } else {
      assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "one\n");
      const { report } = await w.engine.apply(id);
      assert.deepEqual(report.applied.sort(), ["a.txt", "w.txt"]);
      assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "worker\n");
    }
    assert.deepEqual(await userState(w.repo), before);
  });

  Deno.test(`kill -9 of the worker (${mode}): the run fails and keeps what it did`, async () => {
    await using w = await world();
    const before = await userState(w.repo);
    const { child, text } = await runUntil(w, {
      mode,
      steps: workingSteps(w),
      mark: join(w.marks, "working"),
    });
    const paths = statePaths(w.state);
    let id = "";
    await waitFor(async () => {
      for (const entry of Deno.readDirSync(paths.runs)) id = entry.name;
      const r = id ? await loadRecord(paths, id).catch(() => null) : null;
      return r?.attempts.at(-1)?.workerPid !== undefined;
    }, { timeoutMs: 10_000, what: "the worker's pid in the record" });
    const workerPid = (await loadRecord(paths, id)).attempts.at(-1)!.workerPid!;
    Deno.kill(-workerPid, "SIGKILL");
    await child.status;
    await text;
    const record = await loadRecord(paths, id);
    assert.equal(record.state, "problem");
    assert.deepEqual(record.changes!.files.map((f) => f.path), ["a.txt", "w.txt"]);
    assert.deepEqual(await userState(w.repo), before);
    if (mode === "isolate") {
      assert.match(await Deno.readTextFile(paths.run(id).patch), /\+worker/);
      assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "one\n");
    }
  });

  Deno.test(`kill -9 of Pitroom while collecting (${mode}): the work is still recoverable`, async () => {
    await using w = await world();
    const before = await userState(w.repo);
    const steps: FakeStep[] = [
      { writeFile: "a.txt", content: "worker\n" },
      { writeFile: "w.txt", content: "w\n" },
      { answer: "done" },
    ];
    const { child, text } = await runUntil(w, { mode, steps, pause: "collecting" });
    await killed(child, text);
    const id = await onlyRun(w);
    assert.equal((await settled(w, id)).state, "lost");
    assert.deepEqual(await userState(w.repo), before);
    if (mode === "write") {
      await w.engine.revert(id);
      assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "one\n");
    } else {
      await w.engine.apply(id);
      assert.equal(await Deno.readTextFile(join(w.repo, "w.txt")), "w\n");
    }
    assert.deepEqual(await userState(w.repo), before);
  });
}

Deno.test("kill -9 of Pitroom while applying: nothing half-done, apply again finishes", async () => {
  await using w = await world();
  const steps: FakeStep[] = [
    { writeFile: "a.txt", content: "worker\n" },
    { writeFile: "w.txt", content: "w\n" },
    { writeFile: "x.txt", content: "x\n" },
    { answer: "done" },
  ];
  const { child, text } = startChild({
    stateDir: w.state,
    repo: w.repo,
    action: "run",
    mode: "isolate",
    steps,
  });
  await child.status;
  await text;
  const id = await onlyRun(w);
  const before = await userState(w.repo);
  const applying = startChild({
    stateDir: w.state,
    repo: w.repo,
    action: "apply",
    runId: id,
    pause: "applying",
  });
  await waitFor(() => exists(join(w.state, "paused-applying")), {
    timeoutMs: 30_000,
    what: "the apply to pause",
  });
  await killed(applying.child, applying.text);
  assert.deepEqual(await userState(w.repo), before);
  assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "one\n");
  // An apply cut short after some files: the next apply finishes only the rest.
  await Deno.writeTextFile(join(w.repo, "w.txt"), "w\n");
  const { report } = await w.engine.apply(id);
  assert.deepEqual(report.already, ["w.txt"]);
  assert.deepEqual(report.applied.sort(), ["a.txt", "x.txt"]);
  assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "worker\n");
  assert.deepEqual(await userState(w.repo), before);
});

Deno.test("kill -9 of Pitroom while undoing a read run's change (no sandbox): revert finishes it", async () => {
  // With the sandbox a read run cannot change the tree at all (tests/sandbox/).
  await using w = await world({ sandbox: "off" });
  const before = await userState(w.repo);
  const steps: FakeStep[] = [{ writeFile: "sneaky.txt", content: "s\n" }, { answer: "done" }];
  const { child, text } = await runUntil(w, { mode: "read", steps, pause: "reverting" });
  await killed(child, text);
  const id = await onlyRun(w);
  assert.equal((await settled(w, id)).state, "lost");
  assert.equal(await Deno.readTextFile(join(w.repo, "sneaky.txt")), "s\n");
  await w.engine.revert(id);
  assert.equal(await exists(join(w.repo, "sneaky.txt")), false);
  assert.deepEqual(await userState(w.repo), before);
});
