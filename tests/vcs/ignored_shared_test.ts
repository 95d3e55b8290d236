/**
 * The read runs of a crew share one walk of the ignored files (src/vcs/ignored.ts, `share`): a run
 * asked for before a walk began joins it while it is under way and gets the same record; a run
 * asked for after the walk began (a change it must see may have come in between), a walk already
 * over, another list of entries or another keep take their own.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findRepo } from "../../src/vcs/mod.ts";
import { recordIgnored } from "../../src/vcs/ignored.ts";
import { ignoredFilesRepo, put, tempDir, testSys } from "./_helpers.ts";

Deno.test("ignored files: runs asked for before a walk began share it; later ones walk again", async () => {
  await using tmp = await tempDir();
  const { home, root } = await ignoredFilesRepo(tmp.path);
  const sys = testSys(home);
  const repo = (await findRepo(sys, root))!;
  const objectsDir = join(tmp.path, "state", "objects");
  await Deno.mkdir(objectsDir, { recursive: true });
  let clock = 1000;
  const now = () => clock;
  const record = (asked: number, options: { ignored?: string[]; keep?: boolean } = {}) =>
    recordIgnored(sys, repo, {
      objectsDir,
      ignored: options.ignored ?? ["a.log", "build/"],
      keep: options.keep ?? true,
      share: { asked, now },
    });

  // Three runs asked at 900-1000, their walks asked for together: one walk, one record.
  const together = await Promise.all([record(900), record(950), record(1000)]);
  assert.equal(together[1], together[0], "the second joined the first's walk");
  assert.equal(together[2], together[0], "the third joined it too");
  assert.ok(together[0]!.files["build/x.txt"], JSON.stringify(together[0]!.files));

  // A run asked for after the walk began does not join it: its own walk sees the new file.
  clock = 2000;
  const leader = record(2000);
  await put(root, "build/late.txt", "late\n");
  const late = record(2500);
  const [first, second] = await Promise.all([leader, late]);
  assert.notEqual(second, first);
  assert.ok(second.files["build/late.txt"], "the later run's own walk sees the file");

  // A walk that is over is joined by nobody.
  const again = await record(2000);
  assert.notEqual(again, first);

  // Another list, or another keep, is another walk.
  const [all, logs, unkept] = await Promise.all([
    record(2000),
    record(2000, { ignored: ["a.log"] }),
    record(2000, { keep: false }),
  ]);
  assert.notEqual(logs, all);
  assert.deepEqual(Object.keys(logs.files), ["a.log"]);
  assert.notEqual(unkept, all);
  assert.equal(unkept.files["a.log"]![5], undefined, "not kept");

  // Without `share` every call walks alone.
  const [alone1, alone2] = await Promise.all([
    recordIgnored(sys, repo, { objectsDir, ignored: ["a.log"], keep: true }),
    recordIgnored(sys, repo, { objectsDir, ignored: ["a.log"], keep: true }),
  ]);
  assert.notEqual(alone2, alone1);
});
