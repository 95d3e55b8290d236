import assert from "node:assert/strict";
import { showCommand } from "../../src/cli/show.ts";
import { createRun } from "../../src/engine/create.ts";
import { readEventsFile } from "../../src/store/events_file.ts";
import { finishFiles } from "../../src/engine/finish.ts";
import { executeRun } from "../../src/engine/lifecycle.ts";
import { statePaths } from "../../src/store/paths.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function runOnce(steps: FakeStep[]) {
  const state = await tempDir("pitroom-files-");
  const repo = await tempRepo({ "a.txt": "one\n" });
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  const created = await createRun(sys, {
    task: "look",
    mode: "read",
    cwd: repo.path,
    chain: [{ worker: "opencode" }],
    timeoutMs: 30_000,
  });
  const record = await executeRun(sys, created.id, {
    maxParallel: 2,
    backends: () => fakeBackend(() => steps),
  });
  return {
    sys,
    record,
    run: statePaths(state.path).run(record.id),
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

Deno.test("a finished run keeps compressed events and no stderr log when it succeeded", async () => {
  await using t = await runOnce([{ tool: "read", target: "a.txt" }, { answer: "one" }]);
  assert.equal(t.record.state, "done");
  assert.equal(await exists(t.run.events), false);
  assert.equal(await exists(t.run.eventsGz), true);
  assert.equal(await exists(`${t.run.eventsGz}.tmp`), false);
  assert.equal(await exists(t.run.stderr), false);
  const events = await readEventsFile(t.run.events);
  assert.equal(events[0]?.type, "run.started");
  assert.equal(events.at(-1)?.type, "run.finished");
  assert.ok(events.some((e) => e.type === "worker.tool_call" && e.target === "a.txt"));

  await showCommand({ sys: t.sys, flags: { events: true }, args: [t.record.id] });
  const printed = t.sys.stdoutText().trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(printed, events);
});

Deno.test("a run that did not succeed keeps its stderr log", async () => {
  await using t = await runOnce([{ tool: "read", target: "a.txt" }, { exit: 3 }]);
  assert.equal(t.record.state, "problem");
  assert.equal(await exists(t.run.stderr), true);
  assert.equal(await exists(t.run.eventsGz), true);
});

Deno.test("readEventsFile() reads the plain file first, then the compressed one", async () => {
  await using dir = await tempDir();
  const run = statePaths(dir.path).run("20260101-000000-abcd");
  await Deno.mkdir(run.dir, { recursive: true });
  const line = (text: string) =>
    JSON.stringify({ type: "worker.text", time: 1, text }) + "\nnot an event\n";
  await Deno.writeTextFile(run.events, line("plain"));
  assert.deepEqual(
    (await readEventsFile(run.events)).map((e) => e.type === "worker.text" && e.text),
    [
      "plain",
    ],
  );
  await finishFiles(run, true);
  assert.equal(await exists(run.events), false);
  assert.deepEqual(
    (await readEventsFile(run.events)).map((e) => e.type === "worker.text" && e.text),
    [
      "plain",
    ],
  );
  await Deno.remove(run.eventsGz);
  assert.deepEqual(await readEventsFile(run.events), []);
});
