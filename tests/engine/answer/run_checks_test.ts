/**
 * The answer checks and the answer cache through the real run lifecycle: a fake worker in a
 * repository made by the test, real git snapshots, copies and run records.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunRequest } from "../../../src/engine/mod.ts";
import { LiveFold } from "../../../src/engine/present.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import { engineWorld } from "../../support/engine_world.ts";
import type { FakeStep } from "../../support/fake_backend.ts";
import { tempRepo } from "../../support/temp.ts";

const APP = "export function answer() {\n  return 41;\n}\n";

async function world(steps: (spec: RunSpec) => FakeStep[]) {
  const repo = await tempRepo({ "src/app.ts": APP, "README.md": "# app\n" });
  const w = await engineWorld(repo, steps, { config: { cacheDays: 7 } });
  /** A read run, with the config `config` (the engine reads it when the run is made). */
  const run = async (more: Partial<RunRequest> = {}, config: Record<string, unknown> = {}) => {
    await Deno.writeTextFile(w.sys.configPath, JSON.stringify({ cacheDays: 7, ...config }));
    return await w.engine.run({
      task: "Where is the answer?",
      mode: "read",
      worker: "opencode",
      timeoutMs: 30_000,
      ...more,
    });
  };
  return Object.assign(w, { run });
}

const GOOD =
  "## Summary\nIt is `answer()` at src/app.ts:1.\n## Findings\n- src/app.ts:2 - returns 41";

Deno.test("a run's answer is checked: refs verified/total with each failure, in the record and the done line", async () => {
  await using w = await world(() => [
    { tool: "read", target: "src/app.ts" },
    { answer: `${GOOD}\n- \`answer\` also at app.ts:9` },
  ]);
  const record = await w.run();
  assert.equal(record.state, "done");
  assert.deepEqual(record.refs, {
    verified: 2,
    total: 3,
    failed: [{ ref: "app.ts:9", reason: "line 9 is past the end of the file (3 lines)" }],
  });
  assert.equal(record.sections?.summary, "It is `answer()` at src/app.ts:1.");
  assert.equal(record.evidence, undefined);
  const line = new LiveFold().end(record, record.endedAt!);
  assert.equal(line.event, "done");
  assert.equal(line.refs, "2/3");
  assert.equal(line.summary, "It is `answer()` at src/app.ts:1.");
});

Deno.test("a read answer with no tool call is flagged in the record", async () => {
  await using w = await world(() => [{ answer: "It is at src/app.ts:1." }]);
  const record = await w.run();
  assert.deepEqual(record.evidence?.map((f) => f.kind), ["no_tool_calls"]);
  assert.deepEqual(record.refs, { verified: 1, total: 1, failed: [] });
});

Deno.test("an isolate run's absolute paths in its copy map back to the repository's files", async () => {
  await using w = await world((spec) => [
    { writeFile: "src/new.ts", content: "export const x = 1;\nexport const y = 2;\n" },
    { answer: `Added ${spec.cwd}/src/new.ts:2 next to ${spec.cwd}/src/app.ts:1-3.` },
  ]);
  const record = await w.run({ mode: "isolate" });
  assert.equal(record.state, "done", record.message);
  assert.ok(record.isolation?.copyRoot);
  assert.deepEqual(record.refs, { verified: 2, total: 2, failed: [] });
  // The user's tree does not have the new file; the copy does, and that is what was checked.
  await assert.rejects(Deno.stat(join(w.repo.path, "src/new.ts")));
});

Deno.test("a read run's paths in its read view (no sandbox: secret files kept out) map back to the repository", async () => {
  await using w = await world((spec) => [
    { tool: "read", target: "src/app.ts" },
    { answer: `See ${spec.cwd}/src/app.ts:2 and src/app.ts:1.` },
  ]);
  await Deno.writeTextFile(join(w.repo.path, ".gitignore"), ".env\n");
  await Deno.writeTextFile(join(w.repo.path, ".env"), "TOKEN=x\n");
  // With a sandbox the secret file is hidden in the tree itself and there is no view.
  const record = await w.run({}, { sandbox: "off" });
  assert.match(record.notes?.join("\n") ?? "", /write-protected copy of the tree/);
  assert.deepEqual(record.refs, { verified: 2, total: 2, failed: [] });
});

Deno.test("the answer cache: a hit without a worker, a miss on a changed untracked file, --fresh asks again", async () => {
  await using w = await world(() => [
    { tool: "read", target: "src/app.ts" },
    { tokens: { input: 500, output: 50 } },
    { answer: GOOD },
  ]);
  const first = await w.run();
  assert.equal(first.state, "done");
  assert.ok(first.cacheKey);
  assert.ok(first.receipt);

  const second = await w.run();
  assert.equal(w.backend.prompts.length, 1, "no worker ran for the cached answer");
  assert.deepEqual(second.cached, { from: first.id, at: first.endedAt });
  assert.equal(second.state, "done");
  assert.equal(second.answer, first.answer);
  assert.deepEqual(second.refs, first.refs);
  assert.equal(second.attempts.length, 0);
  assert.equal(second.progress.tokens.input, 0);
  assert.equal(second.receipt, undefined, "savings are counted once, on the first run");

  await Deno.writeTextFile(join(w.repo.path, "notes.txt"), "scratch\n");
  const third = await w.run();
  assert.equal(third.cached, undefined);
  assert.equal(w.backend.prompts.length, 2);
  await Deno.writeTextFile(join(w.repo.path, "notes.txt"), "scratch, changed\n");
  const fourth = await w.run();
  assert.equal(fourth.cached, undefined, "an untracked file's change is a new tree state");
  assert.equal(w.backend.prompts.length, 3);

  const fresh = await w.run({ fresh: true });
  assert.equal(fresh.cached, undefined);
  assert.equal(w.backend.prompts.length, 4);
  // The fresh answer is remembered in turn: the next ask gets it.
  const after = await w.run();
  assert.equal(after.cached?.from, fresh.id);
  assert.equal(w.backend.prompts.length, 4);
});

Deno.test("the answer cache gives only answers that held up, and never for other questions or modes", async () => {
  let answer = "It is at src/app.ts:7."; // a reference that fails
  await using w = await world(() => [{ tool: "read", target: "src/app.ts" }, { answer }]);
  await w.run();
  await w.run();
  assert.equal(w.backend.prompts.length, 2, "an answer with a failing reference is not reused");
  answer = GOOD;
  await w.run();
  await w.run({ task: "Where is the answer defined?" });
  await w.run({ worker: "opencode:other" });
  await w.run({ web: true });
  await w.run({}, { cacheDays: 0 });
  // The config's default model for the worker is part of the choice too.
  await w.run({}, { models: { opencode: "other-default" } });
  assert.equal(w.backend.prompts.length, 8);
  const hit = await w.run();
  assert.ok(hit.cached);
  assert.equal(w.backend.prompts.length, 8);
});

Deno.test("a disputed audit on the earlier run keeps its answer out of the cache", async () => {
  await using w = await world(() => [{ tool: "read", target: "src/app.ts" }, { answer: GOOD }]);
  const first = await w.run();
  const path = w.paths.run(first.id).record;
  const stored = JSON.parse(await Deno.readTextFile(path));
  stored.audit = { verdict: "DISAGREE", disputed: ["src/app.ts:2 returns 42"] };
  await Deno.writeTextFile(path, JSON.stringify(stored));
  const second = await w.run();
  assert.equal(second.cached, undefined);
  assert.equal(w.backend.prompts.length, 2);
});
