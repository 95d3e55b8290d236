/**
 * A write run's watch covers the folders its snapshot holds beyond HEAD (untracked ones, and
 * those of files only staged), so the user's edits there while the worker works keep their
 * versions. The quick snapshot names them from its own `git status`; the full path (here: a tree
 * with a `.gitattributes`) compares HEAD's tree with the snapshot's. Both must watch the same.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import type { VersionLine } from "../../src/engine/tree/tree_watch.ts";
import { fakeBackend } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "null" })
    .output();
  assert.ok(out.success, `git ${args.join(" ")}`);
}

/** The folders a write run's watch covered, in a tree with untracked and staged folders. */
async function watchedFolders(committed: Record<string, string>): Promise<string[]> {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n", "src/b.txt": "two\n", ...committed });
  await Deno.mkdir(join(repo.path, "fresh", "deep"), { recursive: true });
  await Deno.writeTextFile(join(repo.path, "fresh", "deep", "u.txt"), "untracked\n");
  await Deno.mkdir(join(repo.path, "staged", "in"), { recursive: true });
  await Deno.writeTextFile(join(repo.path, "staged", "in", "s.txt"), "staged\n");
  await git(repo.path, "add", "staged/in/s.txt");
  await Deno.mkdir(join(repo.path, "bare", "empty"), { recursive: true });
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  const backend = fakeBackend(() => [{ answer: "Done" }]);
  const engine = createEngine(sys, { backends: () => backend });
  const done = await engine.run({
    task: "do nothing",
    mode: "write",
    worker: "opencode",
    timeoutMs: 30_000,
  });
  assert.equal(done.outcome, "ok");
  const text = await Deno.readTextFile(sys.state.paths.run(done.id).versions);
  const lines = text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as VersionLine);
  return lines.flatMap((line) => line.t === "dirs" ? line.d : []).sort();
}

// An untracked folder of empty folders is watched as one (its own folders join when written to).
const EXPECTED = ["", "bare", "fresh", "fresh/deep", "src", "staged", "staged/in"];

Deno.test("a write run's watch covers the untracked and staged folders its git status named", async () => {
  assert.deepEqual(await watchedFolders({}), EXPECTED);
});

Deno.test("on the full path (a tree with attributes) the watch covers the same folders", async () => {
  const folders = await watchedFolders({ ".gitattributes": "*.bin binary\n" });
  assert.deepEqual(folders, EXPECTED);
});
