/**
 * What `apply` and `show` print for a large patch: a run already in the tree is said in one line
 * with a count and at most 20 names (not a line per file), an apply lists at most 20 files, and a
 * change of the executable bit alone shows as such.
 */
import assert from "node:assert/strict";
import { main } from "../../src/cli/main.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { engineWorld } from "../support/engine_world.ts";
import { testSys } from "../support/sys.ts";
import { tempRepo } from "../support/temp.ts";

const MANY = 60;

Deno.test("apply lists at most 20 files, a second apply says it is in the tree with a count, a mode change shows as one", async () => {
  const files: Record<string, string> = { "bin/run.sh": "echo hi\n" };
  for (let i = 0; i < MANY; i++) files[`f/${String(i).padStart(2, "0")}.txt`] = `file ${i}\n`;
  const steps: FakeStep[] = Object.keys(files).filter((p) => p !== "bin/run.sh").map((path) => ({
    writeFile: path,
    content: "changed\n",
  }));
  steps.push({ run: "chmod +x bin/run.sh" }, { answer: "done" });
  await using t = await engineWorld(await tempRepo(files), () => steps);
  const run = await t.engine.run({
    task: "change many files",
    mode: "isolate",
    worker: "opencode",
    timeoutMs: 60_000,
  });
  assert.equal(run.state, "done", run.message);
  const cli = () => testSys({ stateDir: t.sys.stateDir, cwd: t.repo.path });

  const show = cli();
  assert.equal(await main(["show", run.id, "--full"], show), 0);
  assert.match(show.stdoutText(), /^ {2}M bin\/run\.sh +mode 100644 -> 100755$/m);

  const first = cli();
  assert.equal(await main(["apply", run.id], first), 0);
  const applied = first.stdoutText();
  assert.match(
    applied,
    new RegExp(`^applied ${run.id} in ${t.repo.path}: ${MANY + 1} file\\(s\\)$`, "m"),
  );
  assert.match(applied, /^ {2}\.\.\. and 41 more/m);
  assert.ok(applied.split("\n").length <= 24, applied);
  assert.match(applied, /^ {2}modified {2}bin\/run\.sh \(mode 100644 -> 100755\)$/m);

  const again = cli();
  assert.equal(await main(["apply", run.id], again), 0);
  const text = again.stdoutText();
  assert.match(
    text,
    new RegExp(
      `^${run.id} is in your tree already \\(${t.repo.path}\\): ${
        MANY + 1
      } file\\(s\\) as its patch leaves them: `,
    ),
  );
  assert.match(text, /and 41 more\n$/);
  assert.equal(text.split("\n").length, 2);
  assert.ok(text.length < 1_000, `${text.length} bytes`);
});
