/**
 * The floor of a write run (benchmarks/phases/_floor.ts) does its steps for real and fails when
 * one fails: a floor that ran nothing would make every run look expensive.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { WALK_STATUS_ARGS } from "../../src/vcs/walk_start.ts";

const FLOOR = fileURLToPath(new URL("../../benchmarks/phases/_floor.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

async function floor(root: string, stub: string, ceiling: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      `--config=${CONFIG}`,
      "-P=pitroom",
      FLOOR,
      root,
      stub,
      ...WALK_STATUS_ARGS,
    ],
    // A temporary folder inside a repository (TMPDIR in a checkout) must not find that one.
    env: { GIT_CEILING_DIRECTORIES: ceiling },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("the floor walks the tree twice around the stub, and fails when a step does", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pitroom-floor-" });
  try {
    const repo = join(dir, "repo");
    await Deno.mkdir(repo);
    const git = (...args: string[]) =>
      new Deno.Command("git", { args, cwd: repo, stdout: "null", stderr: "null" }).output();
    assert.ok((await git("init", "-q")).success);
    await Deno.writeTextFile(join(repo, "a.txt"), "a\n");
    // The stub leaves a mark in the tree: it ran, inside the sandbox where there is one.
    const stub = join(dir, "stub");
    await Deno.writeTextFile(stub, `#!/bin/sh\necho "$@" > "${repo}/ran"\n`);
    await Deno.chmod(stub, 0o755);
    const ok = await floor(repo, stub, dir);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(await Deno.readTextFile(join(repo, "ran")), "run Answer Done\n");
    // The tree named through a symbolic link: bwrap is given the folder itself.
    await Deno.remove(join(repo, "ran"));
    const link = join(dir, "link");
    await Deno.symlink(repo, link);
    const linked = await floor(link, stub, dir);
    assert.equal(linked.code, 0, linked.stderr);
    assert.equal(await Deno.readTextFile(join(repo, "ran")), "run Answer Done\n");
    // No tree there: bad input, said in one line.
    const nowhere = await floor(join(dir, "nowhere"), stub, dir);
    assert.equal(nowhere.code, 2);
    assert.match(nowhere.stderr, /^no tree at /);
    // Not a repository: the walk fails, and so does the floor.
    const bare = join(dir, "not-a-repo");
    await Deno.mkdir(bare);
    const failed = await floor(bare, stub, dir);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /git status failed/);
    // No stub: the step fails.
    const gone = await floor(repo, join(dir, "no-such-stub"), dir);
    assert.equal(gone.code, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
