import assert from "node:assert/strict";
import { showCommand } from "../../src/cli/show.ts";
import { createEngine } from "../../src/engine/mod.ts";
import { readEventsChecked, readEventsFile } from "../../src/store/events_file.ts";
import type { PitroomEvent } from "../../src/events/mod.ts";
import { DamagedRecord } from "../../src/sys/errors.ts";
import { finishFiles } from "../../src/engine/run/finish.ts";
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
  const backend = fakeBackend(() => steps);
  const engine = createEngine(sys, { backends: () => backend });
  const record = await engine.run({
    task: "look",
    mode: "read",
    worker: "opencode",
    timeoutMs: 30_000,
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
  const line = (text: string) => JSON.stringify({ type: "worker.text", time: 1, text }) + "\n";
  // An event of a type this version does not know is skipped, not damage.
  const foreign = JSON.stringify({ type: "worker.future", time: 2, x: 1 }) + "\n";
  await Deno.writeTextFile(run.events, line("plain") + foreign);
  const texts = (events: PitroomEvent[]) => events.map((e) => e.type === "worker.text" && e.text);
  assert.deepEqual(texts(await readEventsFile(run.events)), ["plain"]);
  await finishFiles(run, true);
  assert.equal(await exists(run.events), false);
  assert.deepEqual(texts(await readEventsFile(run.events)), ["plain"]);
  await Deno.remove(run.eventsGz);
  assert.deepEqual(await readEventsFile(run.events), []);
});

Deno.test("a damaged events file is read up to the damage and named, never read as whole", async () => {
  await using dir = await tempDir();
  const run = statePaths(dir.path).run("20260101-000000-abcd");
  await Deno.mkdir(run.dir, { recursive: true });
  const line = (text: string) => JSON.stringify({ type: "worker.text", time: 1, text }) + "\n";
  // A line that is not an event (torn, flipped, another JSON type) is damage.
  for (const bad of ["not an event", "[1,2]", '{"type":"worker.text","time":1}', '"text"']) {
    await Deno.writeTextFile(run.events, line("a") + bad + "\n" + line("b"));
    const read = await readEventsChecked(run.events);
    assert.deepEqual(read.events.length, 1, bad);
    assert.equal(read.damage, "line 2 is not an event", bad);
    await assert.rejects(readEventsFile(run.events), (e: unknown) => {
      assert.ok(e instanceof DamagedRecord);
      assert.equal(e.file, "events.jsonl");
      assert.equal(e.run, "20260101-000000-abcd");
      return true;
    });
  }
  // A live file's last line may still be being written: not damage.
  await Deno.writeTextFile(run.events, line("a") + '{"type":"wor');
  assert.equal((await readEventsChecked(run.events)).damage, null);
  // A compressed file cut short, altered or empty.
  await Deno.writeTextFile(run.events, line("a") + line("b") + line("c"));
  await finishFiles(run, true);
  const whole = await Deno.readFile(run.eventsGz);
  const flipped = whole.slice();
  flipped[whole.length - 6]! ^= 0xff;
  for (const bytes of [whole.subarray(0, whole.length - 12), flipped, new Uint8Array()]) {
    await Deno.writeFile(run.eventsGz, bytes);
    const read = await readEventsChecked(run.events);
    assert.equal(read.file, "events.jsonl.gz");
    assert.match(read.damage ?? "", /not a whole gzip stream/);
  }
});
