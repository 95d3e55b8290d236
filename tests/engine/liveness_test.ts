import assert from "node:assert/strict";
import { asSeen, reconcile, sweepLost } from "../../src/engine/host/liveness.ts";
import { createRun } from "../../src/engine/request/create.ts";
import { readEventsFile } from "../../src/store/events_file.ts";
import { statePaths } from "../../src/store/paths.ts";
import { loadRecord, writeRecord } from "../../src/store/runs.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("a lost run: a read sees it lost and writes nothing; sweeps at once mark it once", async () => {
  await using state = await tempDir("pitroom-state-");
  const sys = testSys({ stateDir: state.path, cwd: state.path });
  const paths = statePaths(state.path);
  const spec = { task: "q", mode: "read" as const, cwd: state.path, chain: [], timeoutMs: 1000 };
  const run = await createRun(sys, spec);
  // Its supervisor took it and died: running, supervised, and nobody holds its lock.
  await writeRecord(paths, { ...run, state: "running", supervised: true });
  const seen = await asSeen(sys, await loadRecord(paths, run.id));
  assert.equal(seen.state, "lost");
  assert.equal((await loadRecord(paths, run.id)).state, "running");
  const record = await loadRecord(paths, run.id);
  await Promise.all([reconcile(sys, record), reconcile(sys, record), sweepLost(sys)]);
  assert.equal((await loadRecord(paths, run.id)).state, "lost");
  const events = await readEventsFile(paths.run(run.id).events);
  assert.equal(events.filter((e) => e.type === "run.lost").length, 1);
});
