/**
 * The timing seam (sys/timing.ts) that benchmarks/phases/ reads: with `PITROOM_DEBUG_TIMING` set,
 * a run prints one mark per phase on stderr, in the order the phases happen, each a time after
 * the one before; unset, it prints none.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../src/engine/mod.ts";
import { fakeBackend } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

const PHASES = [
  "created",
  "locked",
  "slot",
  "prepared",
  "cache-looked",
  "sandboxed",
  "spawned",
  "worker-ended",
  "collected",
  "checked",
  "final-written",
  "finished",
];

async function runWith(env: Record<string, string>): Promise<string> {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n" });
  const sys = testSys({ stateDir: state.path, cwd: repo.path, env });
  const backend = fakeBackend(() => [{ answer: "Done" }]);
  const report = await createEngine(sys, { backends: () => backend }).run({
    task: "Say done",
    worker: "opencode",
    mode: "write",
  });
  assert.equal(report.outcome, "ok", report.message);
  return sys.stderrText();
}

Deno.test("a run prints its phases' marks in order with PITROOM_DEBUG_TIMING set", async () => {
  const marks = [...(await runWith({ PITROOM_DEBUG_TIMING: "1" })).matchAll(
    /^pitroom-timing (\S+) (\d+\.\d)$/gm,
  )];
  assert.deepEqual(marks.map((m) => m[1]), PHASES);
  const times = marks.map((m) => Number(m[2]));
  for (let i = 1; i < times.length; i++) assert.ok(times[i]! >= times[i - 1]!, PHASES[i]);
  assert.ok(Math.abs(times[0]! - Date.now()) < 60_000, "marks are times since the epoch");
});

Deno.test("a run prints no mark without PITROOM_DEBUG_TIMING", async () => {
  assert.doesNotMatch(await runWith({ PITROOM_DEBUG_TIMING: "" }), /pitroom-timing/);
});
