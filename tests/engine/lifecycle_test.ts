/**
 * One run's life through the front door (`engine.run`, a foreground run): the answer, the
 * worker's edits in a dirty tree, a read run's change undone, the timeout's kill of the whole
 * process group, a stop, the slot queue, one writer per repository, `verify`, the guard, and a
 * receipt the config no longer allows.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunRequest } from "../../src/engine/mod.ts";
import type { PitroomEvent } from "../../src/events/mod.ts";
import { RefusedError } from "../../src/sys/errors.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import { FakeClock } from "../support/clock.ts";
import { engineWorld, type EngineWorldOptions } from "../support/engine_world.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { git, tempDir, tempRepo, waitFor } from "../support/temp.ts";

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
  options: EngineWorldOptions = {},
) {
  return await engineWorld(await tempRepo(files), steps, options);
}

type World = Awaited<ReturnType<typeof setup>>;

async function start(
  t: World,
  mode: "read" | "write",
  options: {
    timeoutMs?: number;
    signal?: AbortSignal;
    onEvent?: (ev: PitroomEvent) => void;
    request?: Partial<RunRequest>;
  } = {},
) {
  return await t.engine.run({
    task: "do the thing",
    mode,
    worker: "opencode",
    timeoutMs: options.timeoutMs ?? 30_000,
    ...options.request,
  }, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
}

Deno.test("engine.run() finishes a read run with the answer, steps and tokens", async () => {
  await using t = await setup(() => [{ tool: "read", target: "a.txt" }, { answer: "It says one" }]);
  const record = await start(t, "read");
  assert.equal(record.state, "done");
  assert.equal(record.exit, 0);
  assert.equal(record.answer, "It says one");
  assert.equal(record.progress.tools, 1);
  assert.equal(record.progress.tokens.input, 10);
  assert.equal(record.changes, undefined);
  assert.match(t.backend.prompts[0]!, /do the thing/);
  assert.equal((await t.engine.get(record.id)).state, "done");
});

Deno.test("engine.run() reports only the worker's edits in a dirty tree, and keeps the user's work", async () => {
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
  const patch = await t.engine.patch(record.id);
  assert.match(patch, /\+worker/);
  assert.doesNotMatch(patch, /edited by the user/);

  const reverted = await t.engine.revert(record.id);
  assert.equal(reverted.changes?.reverted, true);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "a.txt")), "one\n");
  await assert.rejects(Deno.stat(join(t.repo.path, "new.txt")), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "b.txt")), "bee, edited by the user\n");
  assert.equal(await Deno.readTextFile(join(t.repo.path, "notes.txt")), "untracked user notes\n");
  assert.match(await git(t.repo.path, "status", "--porcelain"), /^ M b.txt\n\?\? notes.txt\n$/);
});

Deno.test("engine.revert() refuses when a file the worker changed was changed since", async () => {
  await using t = await setup(
    () => [{ writeFile: "a.txt", content: "worker\n" }, { answer: "Edited" }],
  );
  const record = await start(t, "write");
  await Deno.writeTextFile(join(t.repo.path, "a.txt"), "user changed it again\n");
  await assert.rejects(t.engine.revert(record.id), /changed since the run/);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "a.txt")), "user changed it again\n");
});

Deno.test("engine.run() undoes a read run's change exactly and ends with exit 5 (no sandbox)", async () => {
  await using t = await setup(
    () => [{ writeFile: "a.txt", content: "sneaky\n" }, { answer: "Done" }],
    {
      "a.txt": "one\n",
      "c.txt": "sea\n",
    },
    // With the sandbox a read run cannot change the tree at all (tests/sandbox/).
    { config: { sandbox: "off" } },
  );
  await Deno.writeTextFile(join(t.repo.path, "c.txt"), "user's own edit\n");
  const record = await start(t, "read");
  assert.equal(record.outcome, "read_only_violation");
  assert.equal(record.exit, 5);
  assert.equal(record.changes?.reverted, true);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "a.txt")), "one\n");
  assert.equal(await Deno.readTextFile(join(t.repo.path, "c.txt")), "user's own edit\n");
});

Deno.test("engine.run() kills the whole process group on timeout, even one that ignores SIGTERM", async () => {
  const clock = new FakeClock();
  // The second step line comes once the worker ignores SIGTERM.
  await using t = await setup(() => [{ ignoreTerm: true }, { step: true }, { hang: true }], {
    "a.txt": "one\n",
  }, { clock });
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

Deno.test("engine.run() stops a running worker when its stop signal fires", async () => {
  await using t = await setup(() => [{ hang: true }]);
  const stop = new AbortController();
  const running = start(t, "read", { signal: stop.signal });
  await waitFor(async () => {
    const r = (await t.engine.list())[0];
    return r?.attempts[0]?.workerPid !== undefined;
  }, { timeoutMs: 10_000, what: "the worker to start" });
  stop.abort();
  const record = await running;
  assert.equal(record.outcome, "stopped");
  assert.equal(record.state, "problem");
});

Deno.test("engine.run() queues a second run until the only slot is free (FIFO)", async () => {
  await using gate = await tempDir();
  const release = join(gate.path, "go");
  let launches = 0;
  await using t = await setup(
    () => {
      launches++;
      return launches === 1 ? [{ waitFile: release }, { answer: "first" }] : [{ answer: "second" }];
    },
    undefined,
    { config: { maxParallel: 1 } },
  );
  const first = start(t, "read");
  await waitFor(() => launches === 1, { timeoutMs: 10_000, what: "the first worker" });
  const second = start(t, "read");
  await waitFor(async () => (await t.engine.list())[1]?.supervised === true, {
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
  const [firstRun] = await t.engine.list();
  await assert.rejects(start(t, "write"), (error) => {
    assert.ok(error instanceof RefusedError);
    assert.equal(error.exit, 3);
    assert.match(
      error.message,
      new RegExp(`Another write run \\(${firstRun!.id}\\) is working in`),
    );
    return true;
  });
  assert.equal((await t.engine.list()).length, 1, "a refusal makes no run");
  assert.equal(launches, 1);
  await Deno.writeTextFile(release, "");
  assert.equal((await first).answer, "first writer");
  const third = await start(t, "write");
  assert.equal(third.state, "done", "the writer lock is gone with the first run");
});

Deno.test("a queued write run is refused when it starts while another one took the writer", async () => {
  await using gate = await tempDir();
  const reader = join(gate.path, "reader"), writer = join(gate.path, "writer");
  const launched: string[] = [];
  await using t = await setup(
    (spec) => {
      launched.push(spec.prompt.includes("hold the slot") ? "reader" : "writer");
      return spec.prompt.includes("hold the slot")
        ? [{ waitFile: reader }, { answer: "read" }]
        : [{ waitFile: writer }, { answer: "wrote" }];
      // One codex run at a time: the second codex run waits in the queue for the reader's slot.
    },
    undefined,
    { config: { limits: { codex: 1 } } },
  );
  const read = start(t, "read", { request: { task: "hold the slot", worker: "codex" } });
  await waitFor(() => launched.length === 1, { timeoutMs: 10_000, what: "the reader" });
  // Nobody writes yet: the door lets it in, and it queues behind the reader.
  const queued = start(t, "write", { request: { worker: "codex" } });
  await waitFor(async () => (await t.engine.list()).some((r) => r.mode === "write"), {
    timeoutMs: 10_000,
    what: "the queued writer",
  });
  // Another worker's write run starts at once and takes the writer.
  const working = start(t, "write");
  await waitFor(() => launched.length === 2, { timeoutMs: 10_000, what: "the working writer" });
  const workingId =
    (await t.engine.list()).find((r) => r.mode === "write" && r.state === "running")!
      .id;
  await Deno.writeTextFile(reader, "");
  const refused = await queued;
  assert.equal(refused.outcome, "refused");
  assert.equal(refused.exit, 3);
  assert.match(
    refused.message ?? "",
    new RegExp(`Another write run \\(${workingId}\\) is working in`),
  );
  assert.equal(launched.length, 2, "the refused writer never launched");
  await Deno.writeTextFile(writer, "");
  assert.equal((await working).answer, "wrote");
  assert.equal((await read).answer, "read");
});

Deno.test("--verify runs in the worker's tree after it succeeded; a failing verify is exit 6", async () => {
  await using t = await setup(
    () => [{ writeFile: "a.txt", content: "two\n" }, { answer: "Edited" }],
  );
  const run = async (verify: string) => {
    return await start(t, "write", { request: { task: "edit", verify } });
  };
  const passing = await run("grep -q two a.txt && echo checked");
  assert.equal(passing.outcome, "ok");
  assert.equal(passing.verify?.ok, true);
  assert.match(passing.verify?.output ?? "", /checked/);
  await t.engine.revert(passing.id);

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

Deno.test("a worker that breaks the config file does not cost the run its receipt (the prices were frozen)", async () => {
  let config = "";
  // The worker turns the config file into a folder: reading it at the end would fail (EISDIR).
  await using t = await setup(
    () => [
      { run: `rm -f '${config}' && mkdir '${config}'` },
      { answer: "done" },
      // Without a sandbox, which would keep the worker from touching the config file.
    ],
    undefined,
    { config: { sandbox: "off" } },
  );
  config = t.sys.configPath;
  const record = await start(t, "read", { request: { task: "t" } });
  assert.equal(record.state, "done", record.message);
  assert.ok((await Deno.stat(config)).isDirectory, "the worker did break it");
  assert.equal(record.receipt?.tokens.input, 10);
  const log = await Deno.readTextFile(join(t.sys.stateDir, "logs", "runs.log")).catch(() => "");
  assert.doesNotMatch(log, /pricing run/);
});
