/**
 * Starting one at a time (`Launch.startAlone`, engine/run/start_alone.ts): the state dir's start
 * lock of that name is held from before the worker spawns until its first line on stdout, so a
 * second codex never starts beside one that is still making its helper folder; the lock is
 * free again after the first line (the run goes on), and after `START_ALONE_MAX_MS` at most.
 * Through the real attempt code, with a fake worker that waits on gate files (no sleeps).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { START_ALONE_MAX_MS, startAlone } from "../../src/engine/run/start_alone.ts";
import { tryLock } from "../../src/store/locks.ts";
import type { Backend } from "../../src/workers/types.ts";
import { FakeClock } from "../support/clock.ts";
import { engineWorld } from "../support/engine_world.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo, waitFor } from "../support/temp.ts";

const lockOf = (stateDir: string, name: string) => join(stateDir, "locks", `start-${name}.lock`);

/** Free right now (taken and given back at once)? */
async function free(path: string): Promise<boolean> {
  const held = await tryLock(path);
  held?.release();
  return held !== null;
}

Deno.test("a startAlone launch holds the start lock until its first line, then the run goes on", async () => {
  await using gates = await tempDir("pitroom-gates-");
  await using world = await engineWorld(
    await tempRepo({ "a.txt": "a\n" }),
    () => [
      { tool: "read", target: "a.txt" },
      { waitFile: join(gates.path, "end") },
      { answer: "done" },
    ],
  );
  // The worker stays silent until the test says: its first line comes after the gate file.
  const speak = join(gates.path, "speak");
  const alone: Backend = {
    ...world.backend,
    launch(spec) {
      const launch = world.backend.launch(spec);
      const wait = `while [ ! -e '${speak}' ]; do sleep 0.05; done; exec "$@"`;
      return { ...launch, argv: ["sh", "-c", wait, "sh", ...launch.argv], startAlone: "fake" };
    },
  };
  const engine = createEngine(world.sys, { backends: () => alone });
  const lock = lockOf(world.sys.stateDir, "fake");
  const run = engine.run({ task: "Read a.txt", worker: "opencode" });
  // Spawned and silent: the lock is held (by this process's attempt, not free for another).
  await waitFor(
    async () => (await engine.list({ recent: 1 })).at(-1)?.attempts[0]?.workerPid !== undefined,
    {
      timeoutMs: 20_000,
      what: "the worker to start",
    },
  );
  assert.equal(await free(lock), false, "the lock is free before the worker's first line");
  await Deno.writeTextFile(speak, "");
  await waitFor(() => free(lock), { timeoutMs: 20_000, what: "the lock to be given up" });
  await Deno.writeTextFile(join(gates.path, "end"), "");
  const report = await run;
  assert.equal(report.outcome, "ok", report.message);
  assert.equal(await free(lock), true);
});

Deno.test("startAlone: a second start waits for the first; the bound gives the lock up; no name, no lock", async () => {
  await using state = await tempDir("pitroom-state-");
  const clock = new FakeClock();
  const sys = testSys({ stateDir: state.path, clock });
  const first = await startAlone(sys, "codex");
  let second = false;
  const waiting = startAlone(sys, "codex").then((gate) => {
    second = true;
    return gate;
  });
  assert.equal(await free(lockOf(state.path, "codex")), false);
  assert.equal(second, false);
  // Nothing printed for the whole bound: the lock goes to the next start.
  await clock.advance(START_ALONE_MAX_MS);
  const next = await waiting;
  assert.equal(second, true);
  first.release();
  assert.equal(await free(lockOf(state.path, "codex")), false, "the second holds it now");
  next.release();
  next.release();
  assert.equal(await free(lockOf(state.path, "codex")), true);
  assert.equal(clock.pending, 0, "no bound timer is left");
  (await startAlone(sys, undefined)).release();
  await assert.rejects(startAlone(sys, "../x"), /bad start-alone name/);
});
