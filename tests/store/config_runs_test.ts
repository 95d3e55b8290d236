import assert from "node:assert/strict";
import { join } from "node:path";
import { writeJsonAtomic } from "../../src/sys/atomic.ts";
import { loadConfig } from "../../src/store/config.ts";
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

Deno.test("writeJsonAtomic() leaves no temp file behind and replaces the old content whole", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "r.json");
  await writeJsonAtomic(path, { a: 1 });
  await writeJsonAtomic(path, { b: 2 });
  assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), { b: 2 });
  assert.deepEqual([...Deno.readDirSync(dir.path)].map((e) => e.name), ["r.json"]);
});
