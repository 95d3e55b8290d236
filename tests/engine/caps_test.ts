import assert from "node:assert/strict";
import { join } from "node:path";
import { capHit, capsFrom } from "../../src/engine/request/caps.ts";
import { emptyProgress } from "../../src/store/record.ts";
import { engineWorld } from "../support/engine_world.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

Deno.test("capsFrom() takes flags over the config and warns about bad config values", () => {
  const warnings: string[] = [];
  const caps = capsFrom(
    { maxTokens: 1000, maxSteps: "many", maxCost: 2 },
    { maxCost: 0.5 },
    warnings,
  );
  assert.deepEqual(caps, { maxTokens: 1000, maxCost: 0.5 });
  assert.deepEqual(warnings, ['Config key "caps.maxSteps" should be a number above 0: ignored']);
  assert.throws(
    () => capsFrom(undefined, { maxSteps: 0 }, []),
    /`caps.maxSteps` must be more than 0/,
  );
});

Deno.test("capHit() names the cap reached", () => {
  const p = emptyProgress();
  p.steps = 3;
  p.tokens.input = 900;
  p.tokens.output = 200;
  assert.equal(capHit({ maxSteps: 4 }, p, undefined), null);
  assert.match(capHit({ maxSteps: 3 }, p, undefined)!, /step cap \(3 of 3 steps\)/);
  assert.match(capHit({ maxTokens: 1000 }, p, undefined)!, /token cap \(1,100 of 1,000/);
  assert.match(capHit({ maxCost: 0.01 }, p, 0.02)!, /cost cap \(\$0\.0200 of \$0\.01\)/);
});

async function capped(caps: Record<string, number>, steps: FakeStep[]) {
  await using marks = await tempDir("pitroom-marks-");
  await using t = await engineWorld(
    await tempRepo({ "a.txt": "one\n" }),
    () => steps.map((s) => "waitFile" in s ? { waitFile: join(marks.path, "never") } : s),
  );
  const final = await t.engine.run({
    task: "go on forever",
    mode: "write",
    worker: "opencode,codex",
    timeoutMs: 30_000,
    caps,
  });
  return { final, a: await Deno.readTextFile(join(t.repo.path, "a.txt")) };
}

Deno.test("a worker that reaches --max-steps is stopped, its edit kept, and the chain ends", async () => {
  const { final, a } = await capped({ maxSteps: 2 }, [
    { writeFile: "a.txt", content: "edited\n" },
    { step: true },
    { step: true },
    { waitFile: "" },
    { answer: "never" },
  ]);
  assert.equal(final.outcome, "capped");
  assert.equal(final.state, "problem");
  assert.equal(final.exit, 1);
  assert.match(final.message ?? "", /Stopped at the step cap \(2 of 2 steps\)/);
  assert.equal(final.attempts.length, 1, "a cap does not move along the chain");
  assert.equal(a, "edited\n");
  assert.deepEqual(final.changes?.files.map((f) => f.path), ["a.txt"]);
});

Deno.test("--max-tokens and --max-cost stop a worker as its usage grows", async () => {
  const tokens = await capped({ maxTokens: 500 }, [
    { tokens: { input: 300, output: 100 } },
    { tokens: { input: 300, output: 100 } },
    { waitFile: "" },
  ]);
  assert.equal(tokens.final.outcome, "capped");
  assert.match(tokens.final.message ?? "", /token cap \(800 of 500 tokens\)/);
  const cost = await capped({ maxCost: 0.05 }, [
    { tokens: { input: 10, output: 10, cost: 0.03 } },
    { tokens: { input: 10, output: 10, cost: 0.03 } },
    { waitFile: "" },
  ]);
  assert.equal(cost.final.outcome, "capped");
  assert.match(cost.final.message ?? "", /cost cap \(\$0\.0600 of \$0\.05\)/);
});
