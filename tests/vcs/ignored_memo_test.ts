/**
 * The ignored files a read run keeps (src/vcs/ignored.ts), remembered between runs: a file kept
 * before and unchanged since (its stat, settled) is not hashed again, and its blob is the same;
 * a file changed in any way (even to the same size and modification time) is hashed again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepo } from "../../src/vcs/mod.ts";
import { recordIgnored } from "../../src/vcs/ignored.ts";
import { RACY_MS } from "../../src/vcs/quick_memo.ts";
import type { Runner } from "../../src/sys/mod.ts";
import type { GitSys } from "../../src/vcs/git.ts";
import { ignoredFilesRepo, put, tempDir, testSys } from "./_helpers.ts";

Deno.test("ignored files kept: an unchanged file's blob is remembered, a changed one hashed again", async () => {
  await using tmp = await tempDir();
  const { home, root, git } = await ignoredFilesRepo(tmp.path);
  await put(root, "build/deep/y.txt", "three\n");
  const hashed: string[][] = [];
  const base = testSys(home);
  const runner: Runner = {
    ...base.runner,
    run: (argv, options) => {
      if (argv.includes("hash-object")) {
        hashed.push(new TextDecoder().decode(options?.stdinBytes).split(/[\0\n]/).filter(Boolean));
      }
      return base.runner.run(argv, options);
    },
    spawn: (argv, options) => base.runner.spawn(argv, options),
    kill: (pid, signal) => base.runner.kill(pid, signal),
  };
  const sys: GitSys = { ...base, runner };
  const repo = (await findRepo(sys, root))!;
  const objectsDir = join(tmp.path, "state", "objects");
  await Deno.mkdir(objectsDir, { recursive: true });
  const record = async () => {
    hashed.length = 0;
    return await recordIgnored(sys, repo, {
      objectsDir,
      ignored: ["a.log", "build/"],
      keep: true,
      memoClock: () => Date.now() + RACY_MS + 1000,
    });
  };
  const first = await record();
  assert.equal(hashed.length, 1, "the first record hashes the files");
  const second = await record();
  assert.deepEqual(hashed, [], "the second hashes nothing");
  assert.deepEqual(second.files, first.files);
  const blob = async (path: string) => (await git("hash-object", path)).trim();
  assert.equal(second.files["build/x.txt"]![5], await blob("build/x.txt"));
  // Rewritten through a new file with the same size and modification time.
  const path = join(root, "build", "x.txt");
  const info = await Deno.stat(path);
  await Deno.writeTextFile(`${path}.new`, "TWO\n");
  await Deno.utime(`${path}.new`, info.atime!, info.mtime!);
  await Deno.rename(`${path}.new`, path);
  const third = await record();
  assert.equal(hashed.length, 1);
  assert.ok((hashed as string[][])[0]!.some((p) => p.endsWith("x.txt")), `hashed ${hashed[0]}`);
  assert.ok(
    !(hashed as string[][])[0]!.some((p) => p.endsWith("y.txt")),
    "the unchanged file is not",
  );
  assert.equal(third.files["build/x.txt"]![5], await blob("build/x.txt"));
  assert.equal(third.files["build/deep/y.txt"]![5], first.files["build/deep/y.txt"]![5]);
  // Files changed a moment ago are not trusted next time.
  await put(root, "a.log", "changed\n");
  hashed.length = 0;
  await recordIgnored(sys, repo, { objectsDir, ignored: ["a.log"], keep: true });
  await recordIgnored(sys, repo, { objectsDir, ignored: ["a.log"], keep: true });
  assert.equal(hashed.length, 2, "an unsettled file is hashed each time");
});
