import assert from "node:assert/strict";
import { buildFollowUp, buildPrompt, PROMPT_TEMPLATES } from "../../../src/engine/run/prompt.ts";
import { parseAnswer } from "../../../src/engine/answer/format.ts";

const COMMON = [
  /Do not ask questions back/,
  /Never read, print or change secrets/,
  /Never touch git history/,
  /Stay in scope/,
  /all, a list, a count or which ones: search the whole scope/,
  /give exact numbers; say how you found them/,
  /## Summary[\s\S]*## Findings[\s\S]*## Files changed[\s\S]*## Verified[\s\S]*## Open issues/,
];

Deno.test("buildPrompt() renders each mode's template with the rules, the format, then the task", () => {
  const read = buildPrompt("Where is X?", "read");
  const write = buildPrompt("Fix X", "write");
  const isolate = buildPrompt("Fix X", "isolate");
  for (const prompt of [read, write, isolate]) {
    for (const pattern of COMMON) assert.match(prompt, pattern);
    assert.ok(prompt.trimEnd().endsWith("Task:\nWhere is X?") || prompt.endsWith("Task:\nFix X"));
    assert.doesNotMatch(prompt, /fetch web pages/);
  }
  assert.match(read, /read-only: do not change, create or delete any file/);
  assert.match(write, /the user's own tree/);
  assert.match(isolate, /private copy of the project/);
  assert.notEqual(write, isolate);
});

Deno.test("buildPrompt() adds the web wording, a brief and a handover in their places", () => {
  const prompt = buildPrompt("Compare with the docs", "read", {
    web: true,
    brief: "BRIEF: you implement step 2 of a plan.",
    context: "Another worker started this task.",
  });
  const at = (text: string) => prompt.indexOf(text);
  assert.ok(at("You may fetch web pages") > at("read-only"));
  assert.ok(at("Rules:") > at("You may fetch web pages"));
  assert.ok(at("BRIEF:") > at("Rules:"));
  assert.ok(at("Answer in this format") > at("BRIEF:"));
  assert.ok(at("Another worker started") > at("Answer in this format"));
  assert.ok(at("Task:\nCompare with the docs") > at("Another worker started"));
});

Deno.test("a follow-up gets its own wording, not the first prompt again", () => {
  const prompt = buildFollowUp("Now list the callers");
  assert.match(prompt, /follow-up in the same session/);
  assert.match(prompt, /answer in the same format/);
  assert.doesNotMatch(prompt, /Rules:/);
  assert.ok(prompt.endsWith("Task:\nNow list the callers"));
});

Deno.test("the answer format the prompt shows is one parseAnswer() reads", () => {
  const skeleton = PROMPT_TEMPLATES.answer.split("\n").slice(2, 20).join("\n");
  const parsed = parseAnswer(skeleton);
  assert.equal(parsed.formatted, true);
  assert.equal(parsed.summary, "One to three sentences that answer the task.");
  assert.equal(parsed.findings.length, 1);
  assert.match(parsed.findings[0]!.text, /^`path:line` - what is there/);
});
