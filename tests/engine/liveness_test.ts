/**
 * A run whose supervisor died, through the front door: following it reads it as lost and
 * writes nothing; the door's reads sweep it first, and reads at once mark it lost once.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../src/engine/mod.ts";
import { readEventsFile } from "../../src/store/events_file.ts";
import { statePaths } from "../../src/store/paths.ts";
import { loadRecord } from "../../src/store/runs.ts";
import { placeLiveRun } from "../support/live_run.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("a lost run: following it sees it lost and writes nothing; reads at once mark it once", async () => {
  await using state = await tempDir("pitroom-state-");
  const sys = testSys({ stateDir: state.path, cwd: state.path });
  const paths = statePaths(state.path);
  const engine = createEngine(sys);
  // Its supervisor took it and died: running, supervised, and nobody holds its lock.
  const run = await placeLiveRun(paths, { cwd: state.path, now: Date.now(), running: true });
  const seen: string[] = [];
  const follow = engine.subscribe({ runs: [run.id] }, (ev) => void seen.push(ev.event.type));
  await follow.ended;
  await follow.close();
  assert.deepEqual(seen, ["run.lost"], "the follower is told it is lost");
  assert.equal((await loadRecord(paths, run.id)).state, "running", "following writes nothing");
  // Reads at once, each sweeping first: whichever marks it, every read sees it lost (a read
  // that finds another marking it does not take the held lock for a live supervisor).
  const reads = Array.from({ length: 6 }, (_, i) => i % 2 ? engine.list() : engine.get(run.id));
  for (const read of await Promise.all(reads)) {
    const records = Array.isArray(read) ? read.filter((r) => r.id === run.id) : [read];
    for (const r of records) assert.equal(r.state, "lost", "each read at once sees it lost");
  }
  assert.equal((await loadRecord(paths, run.id)).state, "lost");
  assert.equal((await engine.get(run.id)).state, "lost");
  const events = await readEventsFile(paths.run(run.id).events);
  assert.equal(events.filter((e) => e.type === "run.lost").length, 1);
});
