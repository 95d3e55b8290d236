/**
 * Ignored files around a run: a read run that writes one is a read-only violation and the file
 * is undone when it was small enough to keep; a write run's changes to ignored files are listed
 * apart, not in the patch.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunSpec } from "../../src/workers/types.ts";
import { KEEP_FILE_MAX } from "../../src/vcs/mod.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { engineWorld } from "../support/engine_world.ts";
import { tempRepo } from "../support/temp.ts";

async function setup(steps: (spec: RunSpec) => FakeStep[]) {
  const repo = await tempRepo({ "a.txt": "one\n", ".gitignore": "build/\n*.log\n" });
  await Deno.mkdir(join(repo.path, "build"));
  await Deno.writeTextFile(join(repo.path, "build", "out.log"), "the user's build log\n");
  await Deno.writeTextFile(join(repo.path, "debug.log"), "x".repeat(KEEP_FILE_MAX + 1));
  // Without a sandbox: these test what Pitroom itself detects when a worker's write gets through
  // (the sandbox keeps a read run's tree read-only; tests/sandbox/ covers that).
  return await engineWorld(repo, steps, { config: { sandbox: "off" } });
}

async function start(t: Awaited<ReturnType<typeof setup>>, mode: "read" | "write") {
  return await t.engine.run({ task: "do the thing", mode, worker: "opencode", timeoutMs: 30_000 });
}

Deno.test("a read run that writes into an ignored file is a violation (exit 5) and the file is undone", async () => {
  await using t = await setup(() => [
    { writeFile: "build/out.log", content: "overwritten\n" },
    { writeFile: "build/new.log", content: "made\n" },
    { answer: "Done" },
  ]);
  const record = await start(t, "read");
  assert.equal(record.outcome, "read_only_violation");
  assert.equal(record.exit, 5);
  assert.match(
    record.message ?? "",
    /ignored file\(s\).*"build\/new.log", "build\/out.log": undone$/,
  );
  assert.equal(
    await Deno.readTextFile(join(t.repo.path, "build", "out.log")),
    "the user's build log\n",
  );
  assert.equal(await Deno.lstat(join(t.repo.path, "build", "new.log")).catch(() => null), null);
});

Deno.test("in the sandbox, a read run whose sandbox lets it write an ignored folder has its ignored files walked first: its write there is undone", async () => {
  // In bubblewrap a read run's tree is read-only, and its ignored files are not walked before
  // it (workspace.ts); a sandbox that lets it write part of the tree walks them before the spawn.
  const repo = await tempRepo({ "a.txt": "one\n", ".gitignore": "build/\n" });
  await Deno.mkdir(join(repo.path, "build"));
  await Deno.writeTextFile(join(repo.path, "build", "out.log"), "the user's build log\n");
  await using t = await engineWorld(repo, () => [
    { writeFile: "build/out.log", content: "overwritten\n" },
    { answer: "Done" },
  ], { config: { sandbox: { mode: "required", writable: [join(repo.path, "build")] } } });
  const record = await start(t, "read");
  assert.equal(record.attempts[0]?.sandbox, "bwrap");
  assert.equal(record.outcome, "read_only_violation");
  assert.match(record.message ?? "", /"build\/out.log": undone$/);
  assert.equal(
    await Deno.readTextFile(join(t.repo.path, "build", "out.log")),
    "the user's build log\n",
  );
});

Deno.test("a read run's change to an ignored file too large to keep is a violation, reported as not undone", async () => {
  await using t = await setup(() => [{ writeFile: "debug.log", content: "small now\n" }, {
    answer: "Done",
  }]);
  const record = await start(t, "read");
  assert.equal(record.exit, 5);
  assert.match(
    record.message ?? "",
    /"debug.log".*undone but for "debug.log" \(larger than 1024 KiB/,
  );
});

Deno.test("a write run's changes to ignored files are listed apart, not in the patch", async () => {
  await using t = await setup(() => [
    { writeFile: "a.txt", content: "worker\n" },
    { writeFile: "build/out.log", content: "rebuilt\n" },
    { answer: "Done" },
  ]);
  const record = await start(t, "write");
  assert.equal(record.exit, 0);
  assert.deepStrictEqual(record.changes?.files.map((f) => f.path), ["a.txt"]);
  assert.ok(
    (record.notes ?? []).includes('Changed ignored files, not in the patch: "build/out.log"'),
    String(record.notes),
  );
});
