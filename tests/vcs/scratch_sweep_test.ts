/**
 * Scratch space swept of what a killed process left (vcs/store.ts `sweepScratch`): an entry goes
 * once its change time is old, whatever its mtime says (a seed index keeps the user's index's).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SCRATCH_STALE_MS, scratchBase, sweepScratch } from "../../src/vcs/store.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("sweepScratch removes only entries changed long enough ago, by their change time", async () => {
  await using dir = await tempDir();
  const base = join(dir.path, "tmp");
  await Deno.mkdir(base);
  // A seed copied just now from an index written years ago: its mtime is old, its ctime new.
  const seed = join(base, "seed-1");
  await Deno.writeTextFile(seed, "index bytes");
  await Deno.utime(seed, new Date("2001-01-01"), new Date("2001-01-01"));
  const folder = join(base, "vcs-abc");
  await Deno.mkdir(join(folder, "deep"), { recursive: true });
  await Deno.writeTextFile(join(folder, "deep", "index"), "x");
  const now = Date.now();
  assert.deepEqual(await sweepScratch(base, now), [], "nothing in use is removed");
  assert.deepEqual(await sweepScratch(base, now + SCRATCH_STALE_MS - 60_000), []);
  const later = now + SCRATCH_STALE_MS + 60_000;
  assert.deepEqual((await sweepScratch(base, later)).sort(), ["seed-1", "vcs-abc"]);
  assert.deepEqual([...Deno.readDirSync(base)], []);
});

Deno.test("scratchBase makes the folder and leaves what was just made there", async () => {
  await using dir = await tempDir();
  const objectsDir = join(dir.path, "objects");
  const base = await scratchBase({ objectsDir });
  await Deno.writeTextFile(join(base, "seed-2"), "index bytes");
  assert.equal(await scratchBase({ objectsDir }), base);
  assert.deepEqual(await sweepScratch(base, Date.now()), []);
  assert.deepEqual([...Deno.readDirSync(base)].map((e) => e.name), ["seed-2"]);
});
