import assert from "node:assert/strict";
import { answerSummary, parseAnswer } from "../../../src/engine/answer/format.ts";

Deno.test("parseAnswer() splits the answer format into its sections (headings or labels)", () => {
  const parsed = parseAnswer([
    "## Summary",
    "",
    "Retries are capped at three.",
    "",
    "## Findings",
    "",
    "- `src/retry.ts:12` - `MAX_RETRIES` is 3",
    "- src/http.ts:40-52 wraps every call",
    "  in `withRetry`",
    "- no reference on this one",
    "",
    "Files changed:",
    "- none",
    "Verified: ran `git grep -n MAX_RETRIES`",
    "**Open issues:**",
    "1. The docs say five.",
  ].join("\n"));
  assert.equal(parsed.formatted, true);
  assert.equal(parsed.summary, "Retries are capped at three.");
  assert.deepEqual(parsed.findings, [
    { text: "`src/retry.ts:12` - `MAX_RETRIES` is 3", ref: "src/retry.ts:12" },
    { text: "src/http.ts:40-52 wraps every call in `withRetry`", ref: "src/http.ts:40-52" },
    { text: "no reference on this one" },
  ]);
  assert.deepEqual(parsed.filesChanged, []);
  assert.deepEqual(parsed.verified, ["ran `git grep -n MAX_RETRIES`"]);
  assert.deepEqual(parsed.openIssues, ["The docs say five."]);
});

Deno.test("parseAnswer() returns an answer that ignores the format whole, as its summary", () => {
  const text = "The handler is in src/app.ts:3.\n\nChanges were not needed.\n";
  const parsed = parseAnswer(text);
  assert.equal(parsed.formatted, false);
  assert.equal(parsed.summary, text.trim());
  assert.deepEqual(parsed.findings, []);
  assert.equal(answerSummary(text), text);
});

Deno.test("parseAnswer() keeps text before the first heading and ignores headings in code", () => {
  const parsed = parseAnswer([
    "Here is what I found.",
    "Summary: all good",
    "```",
    "Findings:",
    "```",
  ].join("\n"));
  assert.equal(parsed.preamble, "Here is what I found.");
  assert.match(parsed.summary, /^all good\n```\nFindings:\n```$/);
  assert.deepEqual(parsed.findings, []);
  assert.equal(answerSummary("Summary: all good\nFindings:\n- a.ts:1 x"), "all good");
});
