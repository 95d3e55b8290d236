/**
 * End to end: `run -f FILE` through the real program and the real opencode CLI; `show --full`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { world } from "./_world.ts";

Deno.test("run -f puts the attached file's path and text in the worker's prompt", async () => {
  await using w = await world({
    attached: { turns: [{ answer: "The notes say: ship on Friday." }] },
  }, { config: { maxParallel: 3, limits: { opencode: 2 } } });
  await Deno.writeTextFile(join(w.repo, "notes.md"), "Ship on Friday.\n");
  const r = await w.run([
    "run",
    "--json",
    "-W",
    "opencode",
    "-m",
    "fake/attached",
    "-f",
    "notes.md",
    "What do the notes say?",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.deepEqual(report.files, [{ path: "notes.md", bytes: 16 }]);
  // The settings were resolved once, at creation, and travel with the run.
  assert.deepEqual(report.settings, {
    maxParallel: 3,
    limits: { opencode: 2 },
    cacheDays: 7,
    config: {},
    sandbox: null,
    notify: { on: false },
  });
  const prompt = await Deno.readTextFile(join(w.stateDir, "runs", report.id, "prompt.txt"));
  assert.match(
    prompt,
    /What do the notes say\?\n\nAttached files:\n\nFile notes\.md:\n```\nShip on Friday\.\n```/,
  );
  const shown = await w.run(["show", report.id, "--full"]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /ship on Friday/);
});

Deno.test("run -f refuses a missing file and files past the limit with exit 2, creating no run", async () => {
  await using w = await world({});
  const missing = await w.run(["run", "-f", "nope.md", "Read it"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Attached file "nope\.md" does not exist/);
  await Deno.writeTextFile(join(w.repo, "big.txt"), "x".repeat(300 * 1024));
  const big = await w.run(["run", "-f", "big.txt", "Read it"]);
  assert.equal(big.code, 2);
  assert.match(
    big.stderr,
    /Attached files are too large: 307200 bytes with "big\.txt", at most 262144/,
  );
  const ls = await w.run(["ls", "--json"]);
  assert.deepEqual(JSON.parse(ls.stdout), []);
});
