/**
 * The crash matrix of Pitroom's writes into the user's tree. A child Pitroom is killed with
 * SIGKILL at each step of an apply, a revert of it, a re-apply after a revert, a discard, a
 * group's apply and a write run's revert, over many files, a large one, a deletion, a mode
 * change, a new folder and a file holding the user's own uncommitted edits (merged with the
 * worker's). After every kill each path holds exactly its bytes and mode from before or after
 * the step (never a torn or empty file), the user's index and HEAD are as they were, and one
 * command (the same again, or its opposite) brings the tree to a consistent state, no byte of
 * the user's lost. The kills follow one another in the same world, each from the consistent
 * state the previous recovery left, so the matrix costs one child process per kill.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { statePaths } from "../../src/store/paths.ts";
import { loadRecord } from "../../src/store/runs.ts";
import { exists } from "../../src/sys/fs.ts";
import { renderReport } from "../../src/cli/report.ts";
import type { Mode } from "../../src/workers/types.ts";
import type { ChildJob } from "../support/crash_child.ts";
import { startChild } from "../support/crash_world.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { git, tempDir, tempRepo, waitFor } from "../support/temp.ts";

const MANY = 24;
const lines = (n: number, label: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => `${label(i)}\n`).join("");
const SHARED = lines(12, (i) => `shared ${i}`);
const withLine = (text: string, i: number, line: string) => {
  const all = text.split("\n");
  all[i] = line;
  return all.join("\n");
};
/** A large file: about 4 MB of numbered lines. */
const BIG = lines(500_000, (i) => `${i}`);
const BIG_WORKER = lines(520_000, (i) => `${i}`);

function baseFiles(): Record<string, string> {
  const files: Record<string, string> = {
    "shared.txt": SHARED,
    "gone.txt": "to be deleted\n",
    "run.sh": "echo hi\n",
    "big.txt": BIG,
  };
  for (let i = 0; i < MANY; i++) files[`f/${String(i).padStart(2, "0")}.txt`] = `file ${i}\n`;
  return files;
}

/** The world: a repository with the user's uncommitted work, a state dir, an in-process sys. */
async function world() {
  const repo = await tempRepo(baseFiles());
  const state = await tempDir("pitroom-state-");
  // The user's own uncommitted work, in a file the worker changes too, and an untracked file.
  await Deno.writeTextFile(join(repo.path, "shared.txt"), withLine(SHARED, 0, "mine 0"));
  await Deno.writeTextFile(join(repo.path, "notes.txt"), "my notes\n");
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  const script = { steps: [] as FakeStep[] };
  const backend = fakeBackend(() => script.steps);
  return {
    sys,
    script,
    engine: createEngine(sys, { backends: () => backend, dir: repo.path }),
    repo: repo.path,
    state: state.path,
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}
type World = Awaited<ReturnType<typeof world>>;

/** Runs a worker in process to its end; returns the run's id. */
async function runWorker(w: World, mode: Mode, steps: FakeStep[], group?: string) {
  w.script.steps = steps;
  const done = await w.engine.run({
    task: "change many files",
    mode,
    worker: "opencode",
    timeoutMs: 60_000,
    ...(group ? { group } : {}),
  });
  assert.equal(done.state, "done", done.message);
  return done.id;
}

/** The worker's steps: every kind of change, on the tree as it found it (the user's line 0). */
function workerSteps(): FakeStep[] {
  const steps: FakeStep[] = [];
  for (let i = 0; i < MANY; i++) {
    const path = `f/${String(i).padStart(2, "0")}.txt`;
    steps.push({ writeFile: path, content: `file ${i}\nworker\n` });
  }
  steps.push(
    { writeFile: "shared.txt", content: withLine(withLine(SHARED, 0, "mine 0"), 10, "worker 10") },
    { run: `awk 'BEGIN { for (i = 0; i < 520000; i++) print i }' > big.txt` },
    { run: "rm gone.txt && chmod +x run.sh" },
    { run: "mkdir -p new/deep && printf 'new\\n' > new/deep/made.txt" },
    { answer: "done" },
  );
  return steps;
}

/** A file's state: its bytes' digest and whether it is executable; absent: no file. */
type Tree = Map<string, string>;

async function digest(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Every file of the work tree (`.git` aside): its digest and executable bit. */
async function treeOf(root: string, dir = "", out: Tree = new Map()): Promise<Tree> {
  for await (const entry of Deno.readDir(join(root, dir))) {
    const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (rel === ".git") continue;
    if (entry.isDirectory) {
      await treeOf(root, rel, out);
      continue;
    }
    const info = await Deno.lstat(join(root, rel));
    const x = ((info.mode ?? 0) & 0o100) !== 0 ? "x" : "-";
    out.set(rel, `${x} ${info.size} ${await digest(await Deno.readFile(join(root, rel)))}`);
  }
  return out;
}

/** The state the worker's apply leaves, from the state before (`pre`). */
async function appliedState(pre: Tree, userShared: string): Promise<Tree> {
  const post = new Map(pre);
  const enc = (s: string) => new TextEncoder().encode(s);
  const file = async (text: string, x = "-") =>
    `${x} ${enc(text).length} ${await digest(enc(text))}`;
  for (let i = 0; i < MANY; i++) {
    post.set(`f/${String(i).padStart(2, "0")}.txt`, await file(`file ${i}\nworker\n`));
  }
  post.set("shared.txt", await file(withLine(userShared, 10, "worker 10")));
  post.set("big.txt", await file(BIG_WORKER));
  post.delete("gone.txt");
  post.set("run.sh", await file("echo hi\n", "x"));
  post.set("new/deep/made.txt", await file("new\n"));
  return post;
}

/** The user's state outside the work tree files: index bytes and HEAD. */
async function gitState(repo: string) {
  return {
    index: await digest(await Deno.readFile(join(repo, ".git/index"))),
    head: await git(repo, "rev-parse", "HEAD"),
  };
}

/** Starts `job` in a child Pitroom, waits until it stopped at `pause`, and kills it with SIGKILL. */
async function killAt(w: World, job: Omit<ChildJob, "stateDir" | "repo">, pause: string) {
  const marker = join(w.state, `paused-${pause}`);
  await Deno.remove(marker).catch(() => undefined);
  const { child, text } = startChild({ stateDir: w.state, repo: w.repo, ...job, pause });
  let ended = false;
  const status = child.status.then((s) => (ended = true, s));
  await waitFor(async () => ended || await exists(marker), {
    timeoutMs: 60_000,
    what: `the ${job.action} to reach ${pause}`,
  });
  if (ended) assert.fail(`the ${job.action} ended before ${pause}: ${await text}`);
  child.kill("SIGKILL");
  await status;
  await text;
}

/** Every path holds its state of `a` or of `b`, and no other file appeared. */
function eachFrom(now: Tree, a: Tree, b: Tree, what: string): void {
  for (const path of new Set([...a.keys(), ...b.keys(), ...now.keys()])) {
    const here = now.get(path);
    assert.ok(
      here === a.get(path) || here === b.get(path),
      `${what}: "${path}" holds ${here ?? "nothing"}, neither ${a.get(path) ?? "nothing"} nor ${
        b.get(path) ?? "nothing"
      }`,
    );
    if (here !== undefined) assert.doesNotMatch(here, /^[-x] 0 /, `${what}: "${path}" is empty`);
  }
}

Deno.test("kill -9 at every step of apply, revert, re-apply and discard: one command makes the tree whole", async () => {
  await using w = await world();
  const id = await runWorker(w, "isolate", workerSteps());
  // The user edits the shared file again after the run: the apply merges into it.
  const userShared = withLine(withLine(SHARED, 0, "mine 0"), 1, "mine 1");
  await Deno.writeTextFile(join(w.repo, "shared.txt"), userShared);
  const pre = await treeOf(w.repo);
  const post = await appliedState(pre, userShared);
  const kept = await gitState(w.repo);
  const record = () => loadRecord(statePaths(w.state), id);
  const writes = MANY + 5; // the f/ files, shared, big, gone, run.sh, made.txt

  const steps: {
    action: "apply" | "revert";
    pause: string;
    then: "apply" | "revert";
  }[] = [
    { action: "apply", pause: "applying", then: "apply" },
    { action: "apply", pause: "wrote:0", then: "revert" },
    { action: "apply", pause: "wrote:1", then: "apply" },
    { action: "revert", pause: "wrote:2", then: "revert" },
    { action: "apply", pause: `wrote:${writes >> 1}`, then: "revert" },
    { action: "apply", pause: `wrote:${writes}`, then: "apply" },
    { action: "revert", pause: "wrote:1", then: "apply" },
    { action: "revert", pause: `wrote:${writes >> 1}`, then: "revert" },
    // Re-applied after a revert (the sequence), cut after its first file and later.
    { action: "apply", pause: "wrote:1", then: "revert" },
    { action: "apply", pause: `wrote:${writes - 1}`, then: "apply" },
    { action: "revert", pause: "journaled", then: "apply" },
    { action: "apply", pause: "journaled", then: "revert" },
  ];
  let state: "pre" | "post" = "pre";
  for (const [i, step] of steps.entries()) {
    const what = `step ${i + 1} (${step.action} killed at ${step.pause})`;
    await killAt(w, { action: step.action, runId: id }, step.pause);
    eachFrom(await treeOf(w.repo), pre, post, what);
    assert.deepEqual(await gitState(w.repo), kept, what);
    if (step.pause.startsWith("wrote:") && step.pause !== "wrote:0") {
      // Cut short: the report says so, and revert never claims "reverted already".
      assert.match(renderReport(await record(), Date.now()), /cut short/, what);
    }
    if (step.then === "apply") {
      await w.engine.apply(id, { allowDelete: true });
      state = "post";
    } else {
      await w.engine.revert(id).catch((error) => {
        // A revert killed once its end was journaled had finished: nothing is left to take out.
        if (!(step.action === "revert" && step.pause === "journaled")) throw error;
        assert.match(String(error), /reverted already/, what);
      });
      state = "pre";
    }
    assert.deepEqual(
      await treeOf(w.repo),
      state === "pre" ? pre : post,
      `${what}, then ${step.then}`,
    );
    assert.doesNotMatch(renderReport(await record(), Date.now()), /cut short/, what);
  }
  // A discard cut short is finished by the next; the patch still applies afterwards.
  assert.equal(state, "pre");
  const copy = (await record()).isolation!.copyRoot;
  await killAt(w, { action: "discard", runId: id }, "discarding");
  assert.equal(await exists(copy), false);
  await w.engine.discard(id);
  assert.equal(await exists(`${copy}.discarding`), false);
  await w.engine.apply(id, { allowDelete: true });
  assert.deepEqual(await treeOf(w.repo), post);
  await w.engine.revert(id);
  assert.deepEqual(await treeOf(w.repo), pre);
  assert.deepEqual(await gitState(w.repo), kept);
});

Deno.test("kill -9 in a group's apply: apply -g again finishes the run it cut and skips the one before", async () => {
  await using w = await world();
  const first = await runWorker(w, "isolate", [
    { writeFile: "f/00.txt", content: "first\n" },
    { answer: "done" },
  ], "crew");
  const second = await runWorker(w, "isolate", [
    ...Array.from({ length: 8 }, (_, i) => ({
      writeFile: `f/${String(i + 10).padStart(2, "0")}.txt`,
      content: `second ${i}\n`,
    })),
    { answer: "done" },
  ], "crew");
  const pre = await treeOf(w.repo);
  await killAt(w, { action: "applyGroup", group: "crew" }, "wrote:4");
  const mid = await treeOf(w.repo);
  assert.equal(mid.get("f/00.txt"), `- 6 ${await digest(new TextEncoder().encode("first\n"))}`);
  const result = await w.engine.applyGroup("crew", { allowDelete: true });
  assert.equal(result.failed, undefined);
  assert.deepEqual(result.applied.map((a) => a.record.id), [second]);
  const post = await treeOf(w.repo);
  assert.equal(post.get("f/12.txt"), `- 9 ${await digest(new TextEncoder().encode("second 2\n"))}`);
  for (const path of pre.keys()) {
    if (!/^f\/(00|1\d)\.txt$/.test(path)) assert.equal(post.get(path), pre.get(path), path);
  }
  assert.ok((await loadRecord(statePaths(w.state), first)).isolation?.applied);
});

Deno.test("after an apply cut short, discard works (no loop back to apply) and revert rolls the apply back", async () => {
  await using w = await world();
  const id = await runWorker(w, "isolate", workerSteps());
  const pre = await treeOf(w.repo);
  await killAt(w, { action: "apply", runId: id }, "wrote:3");
  const cut = await loadRecord(statePaths(w.state), id);
  assert.ok(cut.isolation?.applying, "the record says the apply was cut short");
  const discarded = await w.engine.discard(id);
  assert.ok(discarded.isolation?.discarded);
  assert.equal(await exists(discarded.isolation!.copyRoot), false);
  await assert.rejects(w.engine.revert(id).then(() => w.engine.revert(id)), /reverted already/);
  assert.deepEqual(await treeOf(w.repo), pre);
});

Deno.test("an apply cut short, then the user edits a file it wrote: apply says so and revert merges the user's edit back", async () => {
  await using w = await world();
  const id = await runWorker(w, "isolate", workerSteps());
  const pre = await treeOf(w.repo);
  await killAt(w, { action: "apply", runId: id }, "wrote:4");
  const written = join(w.repo, "f/00.txt");
  assert.equal(await Deno.readTextFile(written), "file 0\nworker\n");
  await Deno.writeTextFile(written, "mine\nfile 0\nworker\n");
  await assert.rejects(
    w.engine.apply(id, { allowDelete: true }),
    (error: Error & { hint?: string }) => {
      assert.match(
        error.message,
        /apply of run ".*" was cut short and 1 of its file\(s\) changed since.*"f\/00\.txt"/,
      );
      assert.match(error.hint ?? "", new RegExp(`pitroom revert ${id}`));
      return true;
    },
  );
  await w.engine.revert(id);
  assert.equal(await Deno.readTextFile(written), "mine\nfile 0\n");
  const back = await treeOf(w.repo);
  back.delete("f/00.txt");
  const want = new Map(pre);
  want.delete("f/00.txt");
  assert.deepEqual(back, want);
});

for (const pause of ["wrote:0", "wrote:1", `wrote:${MANY >> 1}`, "journaled"]) {
  Deno.test(`kill -9 in a write run's revert at ${pause}: the next revert finishes, the user's edits kept`, async () => {
    await using w = await world();
    const pre = await treeOf(w.repo);
    const kept = await gitState(w.repo);
    const id = await runWorker(w, "write", workerSteps().filter((s) => !("run" in s)));
    const post = await treeOf(w.repo);
    await killAt(w, { action: "revert", runId: id }, pause);
    eachFrom(await treeOf(w.repo), pre, post, `revert killed at ${pause}`);
    const again = await w.engine.revert(id).catch((error) => {
      if (pause !== "journaled") throw error;
      assert.match(String(error), /reverted already/);
      return null;
    });
    if (again) assert.equal(again.changes?.reverting, undefined);
    assert.deepEqual(await treeOf(w.repo), pre);
    assert.deepEqual(await gitState(w.repo), kept);
    await assert.rejects(w.engine.revert(id), /reverted already/);
  });
}

Deno.test("kill -9 half-way through a revert from the patch (run.json damaged): the next one finishes it", async () => {
  const pause = `wrote:${MANY >> 1}`;
  await using w = await world();
  const pre = await treeOf(w.repo);
  const kept = await gitState(w.repo);
  const id = await runWorker(w, "write", workerSteps().filter((s) => !("run" in s)));
  const post = await treeOf(w.repo);
  const file = statePaths(w.state).run(id).record;
  const whole = await Deno.readTextFile(file);
  await Deno.writeTextFile(file, whole.slice(0, whole.length >> 1));
  await killAt(w, { action: "revert", runId: id }, pause);
  eachFrom(await treeOf(w.repo), pre, post, `revert from the patch killed at ${pause}`);
  const damaged: string[] = [];
  const again = await w.engine.revert(id, { onDamaged: (d) => damaged.push(d.file) });
  assert.deepEqual(damaged, ["run.json"]);
  assert.equal(again.changes?.reverted, true);
  assert.deepEqual(await treeOf(w.repo), pre);
  assert.deepEqual(await gitState(w.repo), kept);
  await assert.rejects(w.engine.revert(id), /undone already/);
  // The damaged file is left as it was, for the user to look at.
  assert.equal(await Deno.readTextFile(file), whole.slice(0, whole.length >> 1));
});

Deno.test("an apply cut short, then run.json damaged: revert takes back what the journal says it wrote", async () => {
  await using w = await world();
  const id = await runWorker(w, "isolate", workerSteps());
  const pre = await treeOf(w.repo);
  await killAt(w, { action: "apply", runId: id }, "wrote:5");
  const file = statePaths(w.state).run(id).record;
  const whole = await Deno.readTextFile(file);
  await Deno.writeTextFile(file, whole.slice(0, 100));
  // Half of its patch is in the tree: undoing the patch could not be checked; the journal can.
  const back = await w.engine.revert(id);
  assert.equal(back.changes?.reverted, true);
  assert.deepEqual(await treeOf(w.repo), pre);
});
