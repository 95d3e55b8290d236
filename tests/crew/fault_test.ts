/**
 * Faults: hosts killed with SIGKILL at random moments leave every run they held marked lost,
 * their workers killed and their slots free for the next crew; a stopped crew (queued runs
 * included) leaves no process behind.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { statePaths } from "../../src/store/paths.ts";
import { busySlots, queuedCount } from "../../src/store/slots.ts";
import { waitFor } from "../support/temp.ts";
import { crewWorld, processesWith, task } from "./_world.ts";

async function alive(pid: number): Promise<boolean> {
  const ps = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const stat = new TextDecoder().decode(ps.stdout).trim();
  return stat.length > 0 && !stat.startsWith("Z");
}

async function hostPid(stateDir: string): Promise<number> {
  return Number((await Deno.readTextFile(join(stateDir, "host", "pid"))).trim());
}

/** A small seeded random (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("hosts killed at random mid-run: their runs are lost, workers gone, slots reclaimed", async () => {
  const seed = Number(Deno.env.get("CREW_SEED") ?? Date.now() % 100_000);
  const rand = random(seed);
  await using w = await crewWorld({ maxParallel: 4 });
  const paths = statePaths(w.stateDir);
  for (const round of [1, 2]) {
    // Runs of random length; some end before the kill, the rest are running or queued.
    const tasks = Array.from({ length: 10 }, (_, n) =>
      task(`round ${round} task ${n}`, [
        { tool: "read", target: `f${n}` },
        { sleepMs: Math.round(rand() * 3000) },
        { answer: `r${round}-${n}` },
      ]));
    const started = await w.run(["crew", "-g", `round${round}`, "--json", ...tasks]);
    assert.equal(started.code, 0, `seed ${seed}: ${started.stderr}`);
    const watch = w.spawn(["watch", "-g", `round${round}`, "--json", "--timeout", "60s"]);
    const host = await hostPid(w.stateDir);
    await waitFor(async () => (await busySlots(paths, 4)) === 4, {
      timeoutMs: 30_000,
      what: "four runs to hold the slots",
    });
    await new Promise((r) => setTimeout(r, Math.round(rand() * 1500)));
    Deno.kill(host, "SIGKILL");

    // The watch sees every run end (lost ones as failed) without being told.
    const out = await watch.output();
    assert.equal(out.code, 0, `seed ${seed}: ${new TextDecoder().decode(out.stderr)}`);
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
    const last = lines.at(-1);
    assert.equal(last.event, "all-done", `seed ${seed}`);
    assert.equal(last.runs, 10);

    const status = await w.run(["status", "-g", `round${round}`, "--json"]);
    const records = JSON.parse(status.stdout) as Array<
      { id: string; state: string; answer?: string; attempts: { workerPid?: number }[] }
    >;
    const lost = records.filter((r) => r.state === "lost");
    assert.equal(
      lost.length + records.filter((r) => r.state === "done").length,
      10,
      `seed ${seed}`,
    );
    assert.equal(last.ok, 10 - lost.length, `seed ${seed}`);
    assert.ok(lost.length >= 1, `seed ${seed}: the kill caught runs in flight`);
    for (const r of lost) {
      const worker = r.attempts.at(-1)?.workerPid;
      if (worker !== undefined) {
        await waitFor(async () => !(await alive(worker)), {
          timeoutMs: 10_000,
          what: `the orphaned worker of ${r.id} to be killed`,
        });
      }
    }
    assert.equal(await busySlots(paths), 0, `seed ${seed}: the dead host's slots are free`);
    assert.equal(await queuedCount(paths), 0, `seed ${seed}: its tickets are gone`);
  }
  // A new crew gets every slot.
  const next = await w.run(["crew", "-g", "after", "--json", ...["a", "b", "c", "d", "e"]]);
  assert.equal(next.code, 0, next.stderr);
  const waited = await w.run(["wait", "-g", "after", "--timeout", "60"]);
  assert.equal(waited.code, 0, waited.stderr);
});

Deno.test("stop -g stops a crew's running and queued runs and leaves no process behind", async () => {
  await using w = await crewWorld({ maxParallel: 2 });
  const never = join(w.dir, "never");
  const tasks = Array.from(
    { length: 5 },
    (_, n) => task(`hang ${n}`, [{ tool: "read", target: "x" }, { waitFile: never }]),
  );
  const started = await w.run(["crew", "-g", "stuck", "--json", ...tasks]);
  assert.equal(started.code, 0, started.stderr);
  const paths = statePaths(w.stateDir);
  await waitFor(async () => (await processesWith(never)).length >= 2, {
    timeoutMs: 30_000,
    what: "two workers to run",
  });
  const host = await hostPid(w.stateDir);

  const stopped = await w.run(["stop", "-g", "stuck", "--json"]);
  assert.equal(stopped.code, 0, stopped.stderr);
  const records = JSON.parse(stopped.stdout) as Array<{ state: string; outcome: string }>;
  assert.equal(records.length, 5);
  assert.deepEqual(records.map((r) => r.outcome), Array(5).fill("stopped"));

  await waitFor(async () => (await processesWith(never)).length === 0, {
    timeoutMs: 10_000,
    what: "every worker to be gone",
  });
  await waitFor(async () => !(await alive(host)), { timeoutMs: 10_000, what: "the host to leave" });
  assert.equal(await busySlots(paths), 0);
  assert.equal(await queuedCount(paths), 0);
});
