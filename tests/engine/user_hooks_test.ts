/**
 * A repository with hooks of its own (`core.hooksPath` into the tree, and `.git/hooks`): none of
 * them runs when Pitroom snapshots, collects, applies or reverts. Git calls a hook such as
 * `post-index-change` whenever an index is written, Pitroom's throwaway ones included, and a
 * hooks folder inside the tree is something a write run's worker can edit: run by Pitroom, it
 * would run outside the worker's sandbox.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { exists } from "../../src/sys/fs.ts";
import type { Mode } from "../../src/workers/types.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { git, tempDir, tempRepo } from "../support/temp.ts";

const HOOKS = [
  "post-index-change",
  "pre-commit",
  "post-checkout",
  "reference-transaction",
  "pre-auto-gc",
];

function hook(marker: string): string {
  return `#!/bin/sh\necho "$(basename "$0") $*" >> '${marker}'\n`;
}

Deno.test("the repository's own hooks (core.hooksPath and .git/hooks) never run in Pitroom's git calls", async () => {
  const marks = await tempDir("pitroom-hooks-marks-");
  await using _marks = marks;
  const marker = join(marks.path, "ran");
  const files: Record<string, string> = { "a.txt": "one\n", "b.txt": "bee\n" };
  for (const name of HOOKS) files[`.githooks/${name}`] = hook(marker);
  await using repo = await tempRepo(files);
  for (const name of HOOKS) {
    await Deno.chmod(join(repo.path, ".githooks", name), 0o755);
    await Deno.writeTextFile(join(repo.path, ".git", "hooks", name), hook(marker), { mode: 0o755 });
  }
  await git(repo.path, "config", "core.hooksPath", ".githooks");
  await Deno.writeTextFile(join(repo.path, "b.txt"), "bee, mine\n");
  await using state = await tempDir("pitroom-state-");
  await Deno.writeTextFile(
    join(state.path, "no-config.json"),
    JSON.stringify({ sandbox: { mode: "auto", writable: [marks.path] } }),
  );
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  let steps: FakeStep[] = [];
  const backend = fakeBackend(() => steps);
  const engine = createEngine(sys, { backends: () => backend });
  const run = async (mode: Mode, script: FakeStep[]) => {
    steps = script;
    return await engine.run({ task: "t", mode, worker: "opencode", timeoutMs: 60_000 });
  };
  // A write run whose worker also rewrites a hook of the tree's hooks folder.
  const written = await run("write", [
    { writeFile: "a.txt", content: "worker\n" },
    { writeFile: ".githooks/post-index-change", content: hook(join(marks.path, "worker")) },
    { answer: "done" },
  ]);
  assert.equal(written.state, "done", written.message);
  await engine.revert(written.id);
  const isolated = await run("isolate", [
    { writeFile: "a.txt", content: "isolated\n" },
    { answer: "done" },
  ]);
  await engine.apply(isolated.id);
  await engine.revert(isolated.id);
  const read = await run("read", [{ answer: "read it" }]);
  assert.equal(read.state, "done", read.message);
  assert.equal(await Deno.readTextFile(join(repo.path, "a.txt")), "one\n");
  assert.equal(await exists(join(marks.path, "worker")), false, "the worker's hook ran");
  const ran = await Deno.readTextFile(marker).catch(() => "");
  assert.equal(ran, "", `hooks ran:\n${ran}`);
});
