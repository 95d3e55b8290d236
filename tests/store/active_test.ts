import assert from "node:assert/strict";
import {
  clearActive,
  listActive,
  listRecent,
  markActive,
  markRecent,
  RECENT_KEEP,
} from "../../src/store/active.ts";
import { statePaths } from "../../src/store/paths.ts";
import { tempDir } from "../support/temp.ts";

const id = (n: number) => `20261130-${String(n).padStart(6, "0")}-abcd`;

Deno.test("markRecent() keeps only the newest RECENT_KEEP ids, oldest first", async () => {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  assert.equal(await listRecent(paths), null);
  for (let n = 1; n <= RECENT_KEEP + 5; n++) await markRecent(paths, id(n));
  const recent = await listRecent(paths);
  assert.equal(recent?.length, RECENT_KEEP);
  assert.equal(recent?.[0], id(6));
  assert.equal(recent?.at(-1), id(RECENT_KEEP + 5));
});

Deno.test("markActive() and clearActive() track live runs", async () => {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  await markActive(paths, id(2));
  await markActive(paths, id(1));
  assert.deepEqual(await listActive(paths), [id(1), id(2)]);
  await clearActive(paths, id(1));
  await clearActive(paths, id(1));
  assert.deepEqual(await listActive(paths), [id(2)]);
});
