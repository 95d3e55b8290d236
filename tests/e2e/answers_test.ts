/**
 * End to end: the real program drives the real codex CLI against the scripted model server;
 * the worker's answer is checked against the repository (refs), shown in the report, `--json`
 * and the watch `done` line, and a held-up answer is given again from the answer cache.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { world } from "./_world.ts";

const FILES = {
  "src/app.ts": "export function answer() {\n  return 41;\n}\n",
  "README.md": "# app\n",
};

Deno.test("a real worker's answer with a good and a bad reference gets refs 1/2", async () => {
  await using w = await world({
    cite: {
      turns: [
        { read: "src/app.ts" },
        {
          answer: [
            "## Summary",
            "`answer()` returns 41.",
            "## Findings",
            "- `answer()` at src/app.ts:1 - returns 41",
            "- src/app.ts:9 - where it is called",
          ].join("\n"),
        },
      ],
    },
  }, { files: FILES });
  const r = await w.run(["run", "-W", "codex", "-m", "fake/cite", "--json", "Where is answer?"]);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.deepEqual(report.refs, {
    verified: 1,
    total: 2,
    failed: [{ ref: "src/app.ts:9", reason: "line 9 is past the end of the file (3 lines)" }],
  });
  assert.equal(report.sections.summary, "`answer()` returns 41.");

  const shown = await w.run(["show", report.id]);
  assert.match(shown.stdout, /^refs {5}1\/2 verified$/m);
  assert.match(shown.stdout, /✗ src\/app\.ts:9: line 9 is past the end of the file/);

  const watched = await w.run(["watch", report.id, "--json"]);
  assert.equal(watched.code, 0, watched.stderr);
  const done = watched.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l))
    .find((l) => l.event === "done");
  assert.equal(done?.refs, "1/2");
  assert.equal(done?.summary, "`answer()` returns 41.");

  // A failing reference keeps the answer out of the cache: the worker is asked again.
  const again = await w.run([
    "run",
    "-W",
    "codex",
    "-m",
    "fake/cite",
    "--json",
    "Where is answer?",
  ]);
  assert.equal(JSON.parse(again.stdout).cached, undefined);
});

Deno.test("a held-up answer comes from the cache until the tree changes or --fresh asks again", async () => {
  await using w = await world({
    good: {
      turns: [
        { read: "src/app.ts" },
        { answer: "## Summary\n`answer()` is at src/app.ts:1 and returns 41 (src/app.ts:2)." },
      ],
    },
  }, { files: FILES });
  const ask = async (...more: string[]) => {
    const r = await w.run([
      "run",
      "-W",
      "codex",
      "-m",
      "fake/good",
      "--json",
      ...more,
      "Where?",
    ]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const first = await ask();
  assert.deepEqual(first.refs, { verified: 2, total: 2, failed: [] });
  const second = await ask();
  assert.equal(second.cached?.from, first.id);
  assert.equal(second.attempts.length, 0);
  assert.equal(second.answer, first.answer);
  const shown = await w.run(["show", second.id]);
  assert.match(shown.stdout, new RegExp(`^cached {3}the answer of run ${first.id} `, "m"));

  const fresh = await ask("--fresh");
  assert.equal(fresh.cached, undefined);
  assert.equal(fresh.attempts.length, 1);

  await Deno.writeTextFile(join(w.repo, "notes.txt"), "my untracked notes\n");
  const changed = await ask();
  assert.equal(changed.cached, undefined);
  assert.equal(changed.attempts.length, 1);
});
