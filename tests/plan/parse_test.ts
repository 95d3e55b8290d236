import assert from "node:assert/strict";
import { parsePlan } from "../../src/engine/plan/parse.ts";
import { parseImplementerReport } from "../../src/engine/plan/status_line.ts";
import { implementerBrief } from "../../src/engine/plan/brief.ts";

const PLAN = `# Token bucket

Goal: rate-limit the API.

## Spec

Requests over the limit get 429.

## Global Constraints

- No new dependencies.

## Task 1: Add the bucket

**Worker:** cheap

Write \`src/bucket.ts\`.

\`\`\`md
## Task 9: not a task (inside a fence)
\`\`\`

### Steps

1. test first

## Task 2: Wire it in

**Worker:** capable

Use it in \`src/server.ts\`.

## Notes

Not part of task 2.
`;

Deno.test("parsePlan() reads the title, header, Spec, constraints and tasks", () => {
  const plan = parsePlan(PLAN);
  assert.equal(plan.title, "Token bucket");
  assert.equal(plan.header, "Goal: rate-limit the API.");
  assert.equal(plan.spec, "Requests over the limit get 429.");
  assert.equal(plan.constraints, "- No new dependencies.");
  assert.deepEqual(plan.tasks.map((t) => [t.step, t.title, t.tier]), [
    [1, "Add the bucket", "cheap"],
    [2, "Wire it in", "capable"],
  ]);
});

Deno.test("parsePlan() keeps a task's body to the next heading of its level, fences ignored", () => {
  const [one, two] = parsePlan(PLAN).tasks;
  assert.match(one!.body, /^## Task 1: Add the bucket/);
  assert.match(one!.body, /Task 9: not a task/);
  assert.match(one!.body, /### Steps\n\n1\. test first$/);
  assert.doesNotMatch(two!.body, /Not part of task 2/);
});

Deno.test("parsePlan() takes malformed plans without throwing", () => {
  for (
    const text of ["", "no headings at all", "```\n# Task 1: fenced\n", "## Task x: no number"]
  ) {
    assert.deepEqual(parsePlan(text).tasks, [], JSON.stringify(text));
  }
  const odd = parsePlan(
    "### Task 3 - dashes\r\n**Worker:** expensive\r\nbody\r\n#### Task 4. dots",
  );
  assert.deepEqual(odd.tasks.map((t) => [t.step, t.title, t.tier]), [
    [3, "dashes", undefined],
    [4, "dots", undefined],
  ]);
  // Task 4 is a deeper heading: it is inside task 3's body.
  assert.match(odd.tasks[0]!.body, /Task 4\. dots/);
});

Deno.test("parseImplementerReport() finds the status line and the open issues", () => {
  const r = parseImplementerReport(
    "Did it.\n\n**STATUS:** DONE_WITH_CONCERNS\nSUMMARY: x\nOPEN ISSUES:\n- the cache is unbounded\n  in tests\n* no docs\n\nTrailing text",
  );
  assert.equal(r.status, "DONE_WITH_CONCERNS");
  assert.deepEqual(r.openIssues, ["the cache is unbounded in tests", "no docs"]);
  assert.deepEqual(parseImplementerReport("STATUS: blocked\nOPEN ISSUES: none").openIssues, []);
  assert.equal(parseImplementerReport("STATUS: blocked").status, "BLOCKED");
  assert.equal(parseImplementerReport("## Status: NEEDS_CONTEXT").status, "NEEDS_CONTEXT");
  assert.equal(parseImplementerReport("STATUS: DONE — tests pass").status, "DONE");
  assert.equal(parseImplementerReport("**STATUS: BLOCKED** (no access)").status, "BLOCKED");
});

Deno.test("parseImplementerReport() says unknown for missing or malformed status lines", () => {
  for (
    const answer of [
      "",
      "All done!",
      "STATUS: FINISHED",
      "STATUS DONE-ish",
      "The STATUS: DONE line is what I would write",
      "STATUS: DONE | DONE_WITH_CONCERNS | BLOCKED",
    ]
  ) {
    assert.equal(parseImplementerReport(answer).status, "unknown", JSON.stringify(answer));
  }
  assert.equal(parseImplementerReport("STATUS: BLOCKED\n...\nSTATUS: DONE").status, "DONE");
});

Deno.test("implementerBrief() carries the plan's context, the constraints, the task and the notes", () => {
  const plan = parsePlan(PLAN);
  const brief = implementerBrief(
    { path: "/p/plan.md", plan, group: "plan-plan" },
    plan.tasks[1]!,
    "Task 1 named the class Bucket",
  );
  assert.match(brief, /## Plan: Token bucket/);
  assert.match(brief, /Requests over the limit get 429\./);
  assert.match(brief, /No new dependencies/);
  assert.match(brief, /Task 2 of 2/);
  assert.match(brief, /Use it in `src\/server\.ts`/);
  assert.doesNotMatch(brief, /Write `src\/bucket\.ts`/);
  assert.match(brief, /Task 1 named the class Bucket/);
  assert.doesNotMatch(brief, /\{\{\w+\}\}/);
});
