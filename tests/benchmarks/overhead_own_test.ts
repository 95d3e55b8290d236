/**
 * The overhead benchmark's "Pitroom's own part" of a run: read from the run's timing marks on
 * the wall clock, the worker's own time left out; none when the run printed no marks.
 */
import assert from "node:assert/strict";
import { ownPart, type Timed } from "../../benchmarks/overhead/_measure.ts";

function timed(stderr: string): Timed {
  return { ms: 1000, startedAt: 5000, endedAt: 6000, code: 0, stdout: "", stderr };
}

Deno.test("a run's own part is its start to the worker's spawn plus the worker's end to its exit", () => {
  const stderr = [
    "pitroom-timing main 5070.5",
    "pitroom-timing spawned 5200",
    "some other line",
    "pitroom-timing worker-ended 5940",
    "pitroom-timing reported 5960",
  ].join("\n");
  assert.deepEqual(ownPart(timed(stderr)), { beforeMs: 200, afterMs: 60 });
});

Deno.test("a run without the worker's marks has no own part", () => {
  assert.equal(ownPart(timed("pitroom-timing main 5070\npitroom-timing spawned 5200\n")), null);
  assert.equal(ownPart(timed("")), null);
});
