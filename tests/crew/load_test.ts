/**
 * Load: 230 background runs through the real CLI (fake workers, one host): 30 at once, the rest
 * queued, all done in FIFO order with no slot leaked and none lost.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { statePaths } from "../../src/store/paths.ts";
import { busySlots, queuedCount } from "../../src/store/slots.ts";
import { readEventsFile } from "../../src/store/events_file.ts";
import { waitFor } from "../support/temp.ts";
import { crewWorld, processesWith, task } from "./_world.ts";

/** The most runs that overlapped in time. */
function peak(spans: Array<[number, number]>): number {
  const edges = spans.flatMap(([a, b]) => [[a, 1], [b, -1]] as const).sort((x, y) =>
    x[0] - y[0] || x[1] - y[1]
  );
  let now = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, now += d);
  return most;
}

Deno.test("a crew of 230 runs: 30 at once, 200 queued, all done, no slot leaked, none lost", async () => {
  await using w = await crewWorld({ maxParallel: 30 });
  const tasks = Array.from(
    { length: 230 },
    (_, n) =>
      task(`task ${n}`, [{ tool: "read", target: `f${n}` }, { sleepMs: 1500 }, {
        answer: `answer ${n}`,
      }]),
  );
  const started = await w.run(["crew", "-g", "load", "--json", ...tasks]);
  assert.equal(started.code, 0, started.stderr);
  const { group, runs } = JSON.parse(started.stdout) as { group: string; runs: string[] };
  assert.equal(group, "load");
  assert.equal(runs.length, 230);

  const waited = await w.run(["wait", "-g", "load", "--json", "--timeout", "120"]);
  assert.equal(waited.code, 0, waited.stderr);
  const records = JSON.parse(waited.stdout) as Array<
    {
      id: string;
      state: string;
      answer: string;
      task: string;
      createdAt: number;
      startedAt: number;
      endedAt: number;
    }
  >;
  assert.equal(records.length, 230);
  assert.deepEqual(records.filter((r) => r.state !== "done").map((r) => r.id), []);
  for (const r of records) {
    assert.equal(
      r.answer,
      `answer ${r.task.split("\n")[0]!.slice(5)}`,
      `run ${r.id} got its own answer`,
    );
  }
  const most = peak(records.map((r) => [r.startedAt, r.endedAt]));
  assert.ok(most <= 30, `at most 30 at once, saw ${most}`);
  assert.ok(most >= 25, `the slots were used in parallel, saw only ${most} at once`);
  // FIFO: of the runs that had to queue, none started long (a queue round or more) before a
  // run created earlier.
  const queued = new Set<string>();
  for (const r of records) {
    // A run is "done" in its record a moment before its events file is compressed: read it in
    // either form, as Pitroom's own readers do.
    const events = await readEventsFile(join(w.stateDir, "runs", r.id, "events.jsonl"));
    if (events.some((e) => e.type === "run.queued")) queued.add(r.id);
  }
  assert.ok(queued.size >= 150, `most runs queued, saw ${queued.size}`);
  const byCreation = records.filter((r) => queued.has(r.id)).sort((a, b) =>
    a.createdAt - b.createdAt || a.id.localeCompare(b.id)
  );
  let earliest = Number.POSITIVE_INFINITY;
  const jumped: string[] = [];
  for (const r of [...byCreation].reverse()) {
    if (r.startedAt > earliest + 1000) jumped.push(r.id);
    earliest = Math.min(earliest, r.startedAt);
  }
  assert.deepEqual(jumped, [], "queued runs start in creation order");

  const paths = statePaths(w.stateDir);
  // A run frees its slot just after its record turns final: wait for that, before the host
  // leaves (its exit would free every slot anyway).
  await waitFor(async () => (await busySlots(paths)) === 0, {
    timeoutMs: 10_000,
    what: "no slot held after the crew",
  });
  assert.equal(await queuedCount(paths), 0, "no ticket is left in the queue");
  const host = Number((await Deno.readTextFile(join(w.stateDir, "host", "pid"))).trim());
  await waitFor(
    async () => (await processesWith(`${host} `)).every((l) => !l.trim().startsWith(`${host} `)),
    {
      timeoutMs: 10_000,
      what: "the host to leave once idle",
    },
  );
});
