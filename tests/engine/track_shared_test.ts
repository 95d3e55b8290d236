/**
 * The runs of a crew handed over together ask git where their repository is once between them
 * (src/engine/tree/tree.ts, `trackTree`): calls for the same folder while the question is under
 * way share its answer; a later call, another folder or other GIT_* variables ask again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { trackTree } from "../../src/engine/tree/tree.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { Runner } from "../../src/sys/mod.ts";
import { put, sh, tempDir, testSys } from "../vcs/_helpers.ts";

Deno.test("trackTree: calls for one folder at once ask git once; later calls ask again", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  const other = join(tmp.path, "other");
  for (const dir of [home, root, other]) await Deno.mkdir(dir);
  for (const dir of [root, other]) {
    await sh(home, dir, "init", "-q", "-b", "main");
    await put(dir, "a.txt", "a\n");
  }
  const base = testSys(home);
  const asked: string[] = [];
  const runner: Runner = {
    ...base.runner,
    run: (argv, options) => {
      if (argv.includes("--show-toplevel")) asked.push(options?.cwd ?? "");
      return base.runner.run(argv, options);
    },
    spawn: (argv, options) => base.runner.spawn(argv, options),
    kill: (pid, signal) => base.runner.kill(pid, signal),
  };
  const sys = { ...base, runner, randomHex: () => "00", clock: { now: () => 0 } } as never;
  const paths = statePaths(join(tmp.path, "state"));

  const ten = await Promise.all(Array.from({ length: 10 }, () => trackTree(sys, paths, root)));
  assert.equal(asked.length, 1, `asked ${asked.length} times`);
  assert.ok(ten.every((tree) => tree?.root === ten[0]?.root && tree?.key === ten[0]?.key));

  asked.length = 0;
  await trackTree(sys, paths, root);
  assert.equal(asked.length, 1, "a call after the answer asks again");

  asked.length = 0;
  const [a, b] = await Promise.all([trackTree(sys, paths, root), trackTree(sys, paths, other)]);
  assert.equal(asked.length, 2, "two folders, two questions");
  assert.notEqual(a?.root, b?.root);

  // Other GIT_* variables are another question (GIT_DIR can name another repository).
  asked.length = 0;
  const vars = { ...base.env.toObject(), GIT_DIR: join(other, ".git") };
  const withGitDir = {
    ...sys as object,
    env: { get: (n: string) => vars[n as never], toObject: () => vars },
  };
  await Promise.all([trackTree(sys, paths, root), trackTree(withGitDir as never, paths, root)]);
  assert.equal(asked.length, 2, "other GIT_* variables ask again");
});
