/**
 * End to end: the real program (`deno run -P=pitroom main.ts`) drives a real worker CLI against
 * the scripted model server in what the shared worker suite (_suite.ts) does not: a read run's
 * shell write with and without the sandbox, a timeout, a killed supervisor (opencode: its read
 * profile allows the shell, and it leaves a process tree behind), then --bg, wait and stop (codex:
 * a few seconds a run where opencode takes ten on a loaded machine; the flow is the program's).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { waitFor } from "../support/temp.ts";
import { alive, liveInGroup, world } from "./_world.ts";

const bytesOf = (text: string) => new TextEncoder().encode(text).length;

Deno.test("a read run that writes through an allowed shell command is caught: exit 5, undone (no sandbox)", async () => {
  // With the sandbox the write fails in the read-only tree (the next case).
  await using w = await world({
    "shell-write": {
      turns: [
        { shell: "sed -n 'w src/copy.ts' src/app.ts" },
        { answer: "Looked at it." },
      ],
    },
  }, { config: { sandbox: "off" } });
  await Deno.writeTextFile(join(w.repo, "README.md"), "# app\n\nuser edit\n");
  const r = await w.run(["run", "-W", "opencode", "-m", "fake/shell-write", "Look at src/app.ts"]);
  assert.equal(r.code, 5, r.stdout + r.stderr);
  assert.match(r.stdout, /changed \(undone\) 1 file/);
  await assert.rejects(Deno.stat(join(w.repo, "src/copy.ts")), Deno.errors.NotFound);
  assert.equal(await w.read("README.md"), "# app\n\nuser edit\n");
});

Deno.test("in the sandbox a read run's write through an allowed shell command fails: nothing to undo", async () => {
  await using w = await world({
    "shell-write": {
      turns: [
        { shell: "sed -n 'w src/copy.ts' src/app.ts" },
        { answer: "Looked at it." },
      ],
    },
  });
  const r = await w.run(["run", "--json", "-W", "opencode", "-m", "fake/shell-write", "Look"]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const record = JSON.parse(r.stdout);
  assert.equal(record.attempts[0].sandbox, "bwrap");
  assert.deepEqual(record.changes?.files ?? [], []);
  // sed's write failed in the read-only tree (the events carry no tool output to show it).
  await assert.rejects(Deno.stat(join(w.repo, "src/copy.ts")), Deno.errors.NotFound);
});

Deno.test("a run that outlives -t is killed with its whole process group: exit 4", async () => {
  await using w = await world({ hang: { turns: [{ hang: true }] } });
  const r = await w.run([
    "run",
    "-W",
    "opencode",
    "-m",
    "fake/hang",
    "-t",
    "4s",
    "--json",
    "Wait forever",
  ]);
  assert.equal(r.code, 4, r.stderr);
  const record = JSON.parse(r.stdout);
  assert.equal(record.outcome, "timeout");
  await waitFor(async () => (await liveInGroup(record.attempts[0].workerPid)).length === 0, {
    timeoutMs: 10_000,
    what: "the worker's process group to die",
  });
});

Deno.test("run --bg returns the id at once; wait collects the report", async () => {
  await using w = await world({
    slow: { turns: [{ read: "README.md", delay_ms: 1500 }, { answer: "Background answer." }] },
  });
  const started = await w.run([
    "run",
    "--bg",
    "-W",
    "codex",
    "-m",
    "fake/slow",
    "Read the README",
  ]);
  assert.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  assert.match(id, /^\d{8}-\d{6}-[0-9a-f]{4}$/);
  const status = await w.run(["status", id, "--json"]);
  assert.ok(["queued", "running", "done"].includes(JSON.parse(status.stdout)[0].state));
  const waited = await w.run(["wait", id, "--timeout", "120", "--json"]);
  assert.equal(waited.code, 0, waited.stderr);
  const [report] = JSON.parse(waited.stdout);
  assert.equal(report.answer, "Background answer.");
  // Both outputs were handed to the caller: the id, then the report, which counts itself.
  const handed = bytesOf(started.stdout) + bytesOf(waited.stdout);
  assert.deepEqual(report.receipt.returned, { bytes: handed, handovers: 2 });
  assert.equal(report.receipt.returnedTokens, Math.ceil(handed / 4));
  const savings = JSON.parse((await w.run(["savings", "--json"])).stdout);
  assert.equal(savings.total.returnedTokens, Math.ceil(handed / 4));
});

Deno.test("wait gives up with exit 75 while a run is still going; stop ends it and its worker", async () => {
  await using w = await world({ hang: { turns: [{ hang: true }] } });
  const id = (await w.run(["run", "--bg", "-W", "codex", "-m", "fake/hang", "Hang"])).stdout
    .trim();
  await waitFor(async () => (await w.record(id)).attempts[0]?.workerPid !== undefined, {
    timeoutMs: 60_000,
    what: "the worker to start",
  });
  const waited = await w.run(["wait", id, "--timeout", "1s"]);
  assert.equal(waited.code, 75);
  const stopped = await w.run(["stop", id]);
  assert.equal(stopped.code, 0, stopped.stderr);
  const record = await w.record(id);
  assert.equal(record.outcome, "stopped");
  await waitFor(async () => (await liveInGroup(record.attempts[0]!.workerPid!)).length === 0, {
    timeoutMs: 10_000,
    what: "the worker's process group to die",
  });
});

Deno.test("a supervisor killed with SIGKILL mid-run: the run is lost, its slot freed, the user's files intact", async () => {
  await using w = await world({
    "edit-then-hang": {
      turns: [{ edit: { path: "src/app.ts", old: "41", new: "7" } }, { hang: true }],
    },
    quick: { turns: [{ answer: "next run got the slot" }] },
  }, { config: { maxParallel: 1 } });
  await Deno.writeTextFile(join(w.repo, "README.md"), "# app\n\nuser work in progress\n");
  const id =
    (await w.run(["run", "--bg", "-w", "-W", "opencode", "-m", "fake/edit-then-hang", "Edit"]))
      .stdout.trim();
  await waitFor(async () => (await w.record(id)).progress.tools >= 1, {
    timeoutMs: 90_000,
    what: "the edit",
  });
  const before = await w.record(id);
  Deno.kill(before.supervisorPid!, "SIGKILL");
  await waitFor(async () => !(await alive(before.supervisorPid!)), {
    timeoutMs: 10_000,
    what: "the supervisor to die",
  });

  const status = await w.run(["status", id, "--json"]);
  assert.equal(JSON.parse(status.stdout)[0].state, "lost");
  await waitFor(async () => (await liveInGroup(before.attempts[0]!.workerPid!)).length === 0, {
    timeoutMs: 10_000,
    what: "the orphaned worker's process group to be killed",
  });
  assert.equal(await w.read("README.md"), "# app\n\nuser work in progress\n");

  const next = await w.run(["run", "-W", "codex", "-m", "fake/quick", "-t", "120s", "Quick"]);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stdout, /next run got the slot/);

  const reverted = await w.run(["revert", id]);
  assert.equal(reverted.code, 0, reverted.stderr);
  assert.equal(await w.read("src/app.ts"), "export const answer = 41;\n");
  assert.equal(await w.read("README.md"), "# app\n\nuser work in progress\n");
});
