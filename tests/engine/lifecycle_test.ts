import assert from "node:assert/strict";
import { join } from "node:path";
import { createRun } from "../../src/engine/request/create.ts";
import { revertRun } from "../../src/engine/runs/revert.ts";
import { executeRun } from "../../src/engine/run/lifecycle.ts";
import { statePaths } from "../../src/store/paths.ts";
import { listRunIds, readRecord } from "../../src/store/runs.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import type { PitroomEvent } from "../../src/events/mod.ts";
import { FakeClock } from "../support/clock.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { git, tempDir, tempRepo, waitFor } from "../support/temp.ts";

/** Every run record in the state dir, oldest first. */
async function listRecords(stateDir: string) {
  const paths = statePaths(stateDir);
  const out = [];
  for (const id of await listRunIds(paths)) {
    const r = await readRecord(paths, id);
    if (r) out.push(r);
  }
  return out;
}

/** Members of a process group that are alive (zombies waiting to be reaped count as dead). */
async function liveInGroup(pgid: number): Promise<string[]> {
  const ps = await new Deno.Command("ps", { args: ["-o", "pid=,stat=", "-g", String(pgid)] })
    .output();
  return new TextDecoder().decode(ps.stdout).split("\n").map((l) => l.trim()).filter((l) =>
    l && !/\sZ/.test(l)
  );
}

async function setup(
  steps: (spec: RunSpec) => FakeStep[],
  files: Record<string, string> = { "a.txt": "one\n" },
  clock?: FakeClock,
) {
  const state = await tempDir("pitroom-state-");
  const repo = await tempRepo(files);
  const sys = testSys({ stateDir: state.path, cwd: repo.path, ...(clock ? { clock } : {}) });
  const backend = fakeBackend(steps);
  return {
    sys,
    repo,
    backend,
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

async function start(
  t: Awaited<ReturnType<typeof setup>>,
  mode: "read" | "write",
  options: {
    timeoutMs?: number;
    stop?: AbortSignal;
    maxParallel?: number;
    onEvent?: (ev: PitroomEvent) => void;
  } = {},
) {
  const record = await createRun(t.sys, {
    task: "do the thing",
    mode,
    cwd: t.repo.path,
    chain: [{ worker: "opencode" }],
    timeoutMs: options.timeoutMs ?? 30_000,
  });
  return await executeRun(t.sys, record.id, {
    maxParallel: options.maxParallel ?? 20,
    backends: () => t.backend,
    ...(options.stop ? { stop: options.stop } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
}

Deno.test("executeRun() finishes a read run with the answer, steps and tokens", async () => {
  await using t = await setup(() => [{ tool: "read", target: "a.txt" }, { answer: "It says one" }]);
  const record = await start(t, "read");
  assert.equal(record.state, "done");
  assert.equal(record.exit, 0);
  assert.equal(record.answer, "It says one");
  assert.equal(record.progress.tools, 1);
  assert.equal(record.progress.tokens.input, 10);
  assert.equal(record.changes, undefined);
  assert.match(t.backend.prompts[0]!, /do the thing/);
  const onDisk = await readRecord(statePaths(t.sys.stateDir), record.id);
  assert.equal(onDisk?.state, "done");
});

Deno.test("executeRun() reports only the worker's edits in a dirty tree, and keeps the user's work", async () => {
  await using t = await setup(() => [
    { writeFile: "a.txt", content: "one\nworker\n" },
    { writeFile: "new.txt", content: "added\n" },
    { answer: "Edited" },
  ], { "a.txt": "one\n", "b.txt": "bee\n" });
  await Deno.writeTextFile(join(t.repo.path, "b.txt"), "bee, edited by the user\n");
  await Deno.writeTextFile(join(t.repo.path, "notes.txt"), "untracked user notes\n");
  const record = await start(t, "write");
  assert.equal(record.state, "done");
  assert.deepEqual(record.changes?.files.map((f) => [f.path, f.status, f.added, f.removed]), [
    ["a.txt", "modified", 1, 0],
    ["new.txt", "added", 1, 0],
  ]);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "b.txt")), "bee, edited by the user\n");
  const patch = await Deno.readTextFile(statePaths(t.sys.stateDir).run(record.id).patch);
  assert.match(patch, /\+worker/);
  assert.doesNotMatch(patch, /edited by the user/);

  const reverted = await revertRun(t.sys, record.id);
  assert.equal(reverted.changes?.reverted, true);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "a.txt")), "one\n");
  await assert.rejects(Deno.stat(join(t.repo.path, "new.txt")), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "b.txt")), "bee, edited by the user\n");
  assert.equal(await Deno.readTextFile(join(t.repo.path, "notes.txt")), "untracked user notes\n");
  assert.match(await git(t.repo.path, "status", "--porcelain"), /^ M b.txt\n\?\? notes.txt\n$/);
});

Deno.test("revertRun() refuses when a file the worker changed was changed since", async () => {
  await using t = await setup(
    () => [{ writeFile: "a.txt", content: "worker\n" }, { answer: "Edited" }],
  );
  const record = await start(t, "write");
  await Deno.writeTextFile(join(t.repo.path, "a.txt"), "user changed it again\n");
  await assert.rejects(revertRun(t.sys, record.id), /changed since the run/);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "a.txt")), "user changed it again\n");
});

Deno.test("executeRun() undoes a read run's change exactly and ends with exit 5 (no sandbox)", async () => {
  await using t = await setup(
    () => [{ writeFile: "a.txt", content: "sneaky\n" }, { answer: "Done" }],
    {
      "a.txt": "one\n",
      "c.txt": "sea\n",
    },
  );
  // With the sandbox a read run cannot change the tree at all (tests/sandbox/).
  await Deno.writeTextFile(t.sys.configPath, JSON.stringify({ sandbox: "off" }));
  await Deno.writeTextFile(join(t.repo.path, "c.txt"), "user's own edit\n");
  const record = await start(t, "read");
  assert.equal(record.outcome, "read_only_violation");
  assert.equal(record.exit, 5);
  assert.equal(record.changes?.reverted, true);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "a.txt")), "one\n");
  assert.equal(await Deno.readTextFile(join(t.repo.path, "c.txt")), "user's own edit\n");
});

Deno.test("executeRun() kills the whole process group on timeout, even one that ignores SIGTERM", async () => {
  const clock = new FakeClock();
  // The second step line comes once the worker ignores SIGTERM.
  await using t = await setup(() => [{ ignoreTerm: true }, { step: true }, { hang: true }], {
    "a.txt": "one\n",
  }, clock);
  let steps = 0;
  const running = start(t, "read", {
    timeoutMs: 600_000,
    onEvent: (ev) => void (ev.type === "worker.step" && steps++),
  });
  let settled = false;
  running.finally(() => (settled = true));
  await waitFor(() => steps >= 2, { timeoutMs: 10_000, what: "the worker to ignore SIGTERM" });
  await clock.advance(600_000 - 1);
  assert.equal(settled, false, "nothing ends before the timeout");
  // The timeout sends SIGTERM, which the worker ignores; SIGKILL follows after the grace.
  await clock.advance(1);
  await clock.advance(3_000);
  const record = await running;
  assert.equal(record.outcome, "timeout");
  assert.equal(record.exit, 4);
  const pid = record.attempts[0]?.workerPid;
  assert.ok(pid !== undefined);
  assert.deepEqual(await liveInGroup(pid), []);
});

Deno.test("executeRun() stops a running worker when its stop signal fires", async () => {
  await using t = await setup(() => [{ hang: true }]);
  const stop = new AbortController();
  const running = start(t, "read", { stop: stop.signal });
  await waitFor(async () => {
    const r = (await listRecords(t.sys.stateDir))[0];
    return r?.attempts[0]?.workerPid !== undefined;
  }, { timeoutMs: 10_000, what: "the worker to start" });
  stop.abort();
  const record = await running;
  assert.equal(record.outcome, "stopped");
  assert.equal(record.state, "problem");
});

Deno.test("executeRun() queues a second run until the only slot is free (FIFO)", async () => {
  await using gate = await tempDir();
  const release = join(gate.path, "go");
  let launches = 0;
  await using t = await setup(() => {
    launches++;
    return launches === 1 ? [{ waitFile: release }, { answer: "first" }] : [{ answer: "second" }];
  });
  const first = start(t, "read", { maxParallel: 1 });
  await waitFor(() => launches === 1, { timeoutMs: 10_000, what: "the first worker" });
  const second = start(t, "read", { maxParallel: 1 });
  await waitFor(async () => (await listRecords(t.sys.stateDir))[1]?.supervised === true, {
    timeoutMs: 10_000,
    what: "the second run to be supervised",
  });
  assert.equal(launches, 1, "the second run must wait for the slot");
  await Deno.writeTextFile(release, "");
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.answer, "first");
  assert.equal(b.answer, "second");
  assert.ok((b.startedAt ?? 0) >= (a.endedAt ?? Infinity) - 5);
});

Deno.test("a second write run in the same repository is refused while one is working", async () => {
  await using gate = await tempDir();
  const release = join(gate.path, "go");
  let launches = 0;
  await using t = await setup(() => {
    launches++;
    return [{ waitFile: release }, { answer: "first writer" }];
  });
  const first = start(t, "write");
  await waitFor(() => launches === 1, { timeoutMs: 10_000, what: "the first writer" });
  const second = await start(t, "write");
  assert.equal(second.outcome, "refused");
  assert.equal(second.exit, 3);
  const firstId = (await listRecords(t.sys.stateDir)).find((r) => r.id !== second.id)!.id;
  assert.match(
    second.message ?? "",
    new RegExp(`Another write run \\(${firstId}\\) is working in`),
  );
  assert.equal(launches, 1);
  await Deno.writeTextFile(release, "");
  assert.equal((await first).answer, "first writer");
  const third = await start(t, "read");
  assert.equal(third.state, "done", "the refused run freed its slot and the writer lock is gone");
});

Deno.test("--verify runs in the worker's tree after it succeeded; a failing verify is exit 6", async () => {
  await using t = await setup(
    () => [{ writeFile: "a.txt", content: "two\n" }, { answer: "Edited" }],
  );
  const run = async (verify: string) => {
    const created = await createRun(t.sys, {
      task: "edit",
      mode: "write",
      cwd: t.repo.path,
      chain: [{ worker: "opencode" }],
      timeoutMs: 30_000,
      verify,
    });
    return await executeRun(t.sys, created.id, { maxParallel: 20, backends: () => t.backend });
  };
  const passing = await run("grep -q two a.txt && echo checked");
  assert.equal(passing.outcome, "ok");
  assert.equal(passing.verify?.ok, true);
  assert.match(passing.verify?.output ?? "", /checked/);
  await revertRun(t.sys, passing.id);

  const failing = await run("echo 'expected one' >&2; grep -q one a.txt");
  assert.equal(failing.outcome, "verify_failed");
  assert.equal(failing.exit, 6);
  assert.equal(failing.verify?.code, 1);
  assert.match(failing.verify?.output ?? "", /expected one/);
  assert.match(failing.message ?? "", /exited with 1/);
  assert.deepEqual(
    failing.changes?.files.map((f) => f.path),
    ["a.txt"],
    "the worker's edit stays for the agent to judge",
  );
});

Deno.test("a worker's git commit is refused by the guard on its PATH; HEAD and the index stay", async () => {
  await using t = await setup(() => [
    { writeFile: "a.txt", content: "two\n" },
    { run: "git -c user.name=w -c user.email=w@example.invalid commit -qam sneaky" },
    { run: "sh -c 'git add a.txt'" },
    { answer: "Edited" },
  ]);
  const head = await git(t.repo.path, "rev-parse", "HEAD");
  const record = await start(t, "write");
  assert.equal(record.state, "done");
  assert.equal(await git(t.repo.path, "rev-parse", "HEAD"), head);
  assert.equal((await git(t.repo.path, "diff", "--cached", "--name-only")).trim(), "");
  assert.deepEqual(record.changes?.files.map((f) => f.path), ["a.txt"]);
});

Deno.test("a receipt the config no longer allows is logged in logs/runs.log, and the run still ends", async () => {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n" });
  const config = join(state.path, "config.json");
  // Without a sandbox, which would keep the worker from touching the config file.
  await Deno.writeTextFile(config, JSON.stringify({ sandbox: "off" }));
  const sys = testSys({ stateDir: state.path, cwd: repo.path, env: { PITROOM_CONFIG: config } });
  // The worker turns the config file into a folder: reading the prices at the end fails (EISDIR).
  const backend = fakeBackend(() => [
    { run: `rm -f '${config}' && mkdir '${config}'` },
    { answer: "done" },
  ]);
  const created = await createRun(sys, {
    task: "t",
    mode: "read",
    cwd: repo.path,
    chain: [{ worker: "opencode" }],
    timeoutMs: 30_000,
  });
  const record = await executeRun(sys, created.id, { maxParallel: 1, backends: () => backend });
  assert.equal(record.state, "done", record.message);
  assert.equal(record.receipt, undefined);
  const log = await Deno.readTextFile(join(state.path, "logs", "runs.log"));
  assert.match(
    log,
    new RegExp(`pricing run ${record.id} \\(no receipt\\): IsADirectory: Is a directory`),
  );
});
