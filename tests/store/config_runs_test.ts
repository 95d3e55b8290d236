import assert from "node:assert/strict";
import { join } from "node:path";
import { writeJsonAtomic } from "../../src/store/atomic.ts";
import { loadConfig } from "../../src/store/config.ts";
import { statePaths } from "../../src/store/paths.ts";
import { resolveRunId } from "../../src/store/runs.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("loadConfig() warns about unknown keys and wrong types and keeps the rest", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "config.json");
  await Deno.writeTextFile(
    path,
    JSON.stringify({ worker: "codex", maxParallel: "lots", colour: "blue" }),
  );
  const loaded = await loadConfig(path);
  assert.deepEqual(loaded.config, { worker: "codex" });
  assert.deepEqual(loaded.warnings, [
    'Config key "maxParallel" should be a number: ignored',
    'Config key "colour" is unknown and ignored',
  ]);
});

Deno.test("loadConfig() takes dash as a boolean only", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "config.json");
  await Deno.writeTextFile(path, JSON.stringify({ dash: false }));
  assert.deepEqual((await loadConfig(path)).config, { dash: false });
  await Deno.writeTextFile(path, JSON.stringify({ dash: "no" }));
  const wrong = await loadConfig(path);
  assert.deepEqual(wrong.config, {});
  assert.deepEqual(wrong.warnings, ['Config key "dash" should be a boolean: ignored']);
});

Deno.test("loadConfig() takes mcpDash as a boolean and warns about anything else", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "config.json");
  await Deno.writeTextFile(path, JSON.stringify({ mcpDash: false }));
  assert.deepEqual((await loadConfig(path)).config, { mcpDash: false });
  await Deno.writeTextFile(path, JSON.stringify({ mcpDash: "no" }));
  const wrong = await loadConfig(path);
  assert.deepEqual(wrong.config, {});
  assert.deepEqual(wrong.warnings, ['Config key "mcpDash" should be a boolean: ignored']);
});

Deno.test("loadConfig() turns a broken file into a warning and a missing one into an empty config", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "config.json");
  assert.deepEqual(await loadConfig(path), { config: {}, warnings: [], path, exists: false });
  await Deno.writeTextFile(path, "{ nope");
  const broken = await loadConfig(path);
  assert.equal(broken.config.worker, undefined);
  assert.match(broken.warnings[0] ?? "", /is not valid JSON/);
});

Deno.test("resolveRunId() takes a full id, a unique part or `last`, and refuses ambiguity", async () => {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  for (const id of ["20261130-101500-3f2a", "20261130-101501-3f2b", "20261130-111111-aaaa"]) {
    await Deno.mkdir(paths.run(id).dir, { recursive: true });
  }
  assert.equal(await resolveRunId(paths, "last"), "20261130-111111-aaaa");
  assert.equal(await resolveRunId(paths, "3f2a"), "20261130-101500-3f2a");
  assert.equal(await resolveRunId(paths, "20261130-101501-3f2b"), "20261130-101501-3f2b");
  await assert.rejects(resolveRunId(paths, "20261130-1015"), /ambiguous/);
  await assert.rejects(resolveRunId(paths, "zzzz"), /No run "zzzz"/);
});

Deno.test("resolveRunId() answers a full id without listing the runs folder", async () => {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  await Deno.mkdir(paths.run("20261130-101500-3f2a").dir, { recursive: true });
  const readDirSync = Deno.readDirSync;
  let listings = 0;
  Object.assign(Deno, {
    readDirSync: (path: string | URL) => {
      listings++;
      return readDirSync(path);
    },
  });
  try {
    assert.equal(await resolveRunId(paths, "20261130-101500-3f2a"), "20261130-101500-3f2a");
    assert.equal(listings, 0);
    // A full id that is not there, and a part of one, still look through the folder.
    await assert.rejects(resolveRunId(paths, "20261130-101500-0000"), /No run/);
    assert.equal(await resolveRunId(paths, "3f2a"), "20261130-101500-3f2a");
    assert.equal(listings, 2);
  } finally {
    Object.assign(Deno, { readDirSync });
  }
});

Deno.test("writeJsonAtomic() leaves no temp file behind and replaces the old content whole", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "r.json");
  await writeJsonAtomic(path, { a: 1 });
  await writeJsonAtomic(path, { b: 2 });
  assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), { b: 2 });
  assert.deepEqual([...Deno.readDirSync(dir.path)].map((e) => e.name), ["r.json"]);
});
