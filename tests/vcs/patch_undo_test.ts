/**
 * `undoPatch`: a run's patch (as the engine writes it, `patchBetween` of two snapshots) undone
 * in the work tree with `git apply -R` when the run's record is lost: checked first, on the bytes
 * on disk whatever the repository's line-ending rules, only the files asked for.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepo, patchBetween, snapshot, undoPatch } from "../../src/vcs/mod.ts";
import { RefusedError } from "../../src/sys/errors.ts";
import { sh, tempDir, testSys } from "./_helpers.ts";

async function setup() {
  const tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  await Deno.mkdir(home);
  await Deno.mkdir(root);
  const sys = testSys(home);
  await sh(home, root, "init", "-q", "-b", "main");
  // Line endings converted on checkout: the snapshots hold the bytes on disk (CRLF).
  await Deno.writeTextFile(join(root, ".gitattributes"), "*.txt text eol=crlf\n");
  const names = ["a.txt", "b.txt", "we*ird [1].txt"];
  for (const name of names) await Deno.writeTextFile(join(root, name), `${name}\r\nsecond\r\n`);
  await sh(home, root, "add", "-A");
  await sh(home, root, "commit", "-q", "-m", "init");
  const repo = (await findRepo(sys, root))!;
  const store = { objectsDir: join(tmp.path, "objects") };
  const before = await snapshot(sys, repo, store);
  for (const name of names) {
    await Deno.writeTextFile(join(root, name), `${name}\r\nby the worker\r\n`);
  }
  await Deno.writeTextFile(join(root, "new.bin"), "\u0000\u0001binary\u0002");
  const after = await snapshot(sys, repo, { ...store, base: before });
  const patch = await patchBetween(sys, repo, { ...store, before, after: after.tree });
  return { tmp, home, root, sys, repo, store, patch, names };
}

Deno.test("undoPatch() undoes only the files asked for, on the bytes on disk", async () => {
  const t = await setup();
  await using _ = t.tmp;
  const undone = await undoPatch(t.sys, t.repo, t.store, t.patch, {
    runId: "r1",
    only: ["a.txt", "we*ird [1].txt", "new.bin"],
  });
  assert.deepEqual(undone.sort(), ["a.txt", "new.bin", "we*ird [1].txt"]);
  assert.equal(await Deno.readTextFile(join(t.root, "a.txt")), "a.txt\r\nsecond\r\n");
  assert.equal(
    await Deno.readTextFile(join(t.root, "we*ird [1].txt")),
    "we*ird [1].txt\r\nsecond\r\n",
  );
  // Not asked for: left as the worker made it (the glob characters matched only their file).
  assert.equal(await Deno.readTextFile(join(t.root, "b.txt")), "b.txt\r\nby the worker\r\n");
  await assert.rejects(Deno.stat(join(t.root, "new.bin")), Deno.errors.NotFound);
  // The user's index is not touched.
  assert.equal(await sh(t.home, t.root, "diff", "--cached", "--name-only"), "");
});

Deno.test("undoPatch() refuses when a file changed since, and says when it is undone already", async () => {
  const t = await setup();
  await using _ = t.tmp;
  await Deno.writeTextFile(join(t.root, "b.txt"), "b.txt\r\nthe user's own line\r\n");
  await assert.rejects(
    undoPatch(t.sys, t.repo, t.store, t.patch, { runId: "r1" }),
    (error: unknown) => {
      assert.ok(error instanceof RefusedError);
      assert.equal(error.code, "changed_since");
      return true;
    },
  );
  // Nothing was written: every other file is still as the worker left it.
  assert.equal(await Deno.readTextFile(join(t.root, "a.txt")), "a.txt\r\nby the worker\r\n");
  assert.equal(await Deno.readTextFile(join(t.root, "b.txt")), "b.txt\r\nthe user's own line\r\n");
  await Deno.writeTextFile(join(t.root, "b.txt"), "b.txt\r\nby the worker\r\n");
  await undoPatch(t.sys, t.repo, t.store, t.patch, { runId: "r1" });
  await assert.rejects(
    undoPatch(t.sys, t.repo, t.store, t.patch, { runId: "r1" }),
    /its patch is not in the tree \(undone already\)/,
  );
});
