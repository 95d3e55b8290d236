/**
 * End to end with the real codex worker against the scripted model server: a write run in a
 * second repository is not `last` in the first, `revert last` there touches nothing of it, and
 * its full id reverts it where it worked, naming that repository.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pitroom } from "../support/pitroom.ts";
import { tempRepo } from "../support/temp.ts";
import { world } from "./_world.ts";

Deno.test("`revert last` in one repository never reverts a write run of another", async () => {
  await using w = await world({
    edit: {
      turns: [
        { edit: { path: "src/app.ts", old: "41", new: "42" } },
        { answer: "Set the answer to 42." },
      ],
    },
  });
  await using other = await tempRepo({ "src/app.ts": "export const answer = 41;\n" });
  const repo2 = await Deno.realPath(other.path);
  const inRepo2 = (args: string[]) => pitroom(args, { env: w.env, cwd: repo2 });
  const made = await inRepo2([
    "run",
    "-w",
    "-W",
    "codex",
    "-m",
    "fake/edit",
    "--json",
    "Make the answer 42",
  ]);
  assert.equal(made.code, 0, made.stderr);
  const record = JSON.parse(made.stdout);
  assert.equal(record.repoRoot, repo2);
  const edited = "export const answer = 42;\n";
  assert.equal(await Deno.readTextFile(join(repo2, "src/app.ts")), edited);

  const last = await w.run(["revert", "last"]);
  assert.equal(last.code, 2, last.stderr);
  assert.match(last.stderr, /No runs in this repository/);
  assert.equal(await Deno.readTextFile(join(repo2, "src/app.ts")), edited);
  assert.equal(await w.read("src/app.ts"), "export const answer = 41;\n");

  const reverted = await w.run(["revert", record.id]);
  assert.equal(reverted.code, 0, reverted.stderr);
  assert.match(reverted.stdout, new RegExp(`of ${record.id} in ${repo2}:`));
  assert.equal(await Deno.readTextFile(join(repo2, "src/app.ts")), "export const answer = 41;\n");
  // In repo2 it is `last`.
  assert.match((await inRepo2(["show", "last"])).stdout, new RegExp(`^run ${record.id}`));
});
