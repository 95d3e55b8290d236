import assert from "node:assert/strict";
import { parseReviewRequest, reviewRequestJsonSchema } from "../../src/engine/review/request.ts";
import { clipDiff, parseRange } from "../../src/engine/review/package.ts";
import { reviewRequestFrom } from "../../src/cli/review.ts";

Deno.test("parseReviewRequest() wants a run or a range, and one reviewer choice", () => {
  assert.deepEqual(parseReviewRequest({ run: "last" }), { run: "last" });
  assert.throws(() => parseReviewRequest({}), /give one of `run` and `range: A..B`/);
  assert.throws(() => parseReviewRequest({ run: "a", range: "x..y" }), /give one of `run`/);
  assert.throws(() => parseReviewRequest({ run: "a", plan: "p.md" }), /`plan` goes with `range`/);
  assert.throws(
    () => parseReviewRequest({ run: "a", tier: "x", worker: "codex" }),
    /one of `worker` and `tier`/,
  );
  assert.throws(() => parseReviewRequest({ run: 3 }), /Invalid review request: run/);
  assert.equal(
    (reviewRequestJsonSchema().properties as Record<string, unknown>).range !== undefined,
    true,
  );
});

Deno.test("parseRange() splits A..B and A...B; refuses anything else", () => {
  assert.deepEqual(parseRange("main..HEAD"), { from: "main", to: "HEAD" });
  assert.deepEqual(parseRange("abc123...HEAD"), { from: "abc123", to: "HEAD" });
  for (const bad of ["HEAD", "..HEAD", "main..", ""]) {
    assert.throws(() => parseRange(bad), /not of the form A\.\.B/, bad);
  }
});

Deno.test("reviewRequestFrom() maps the review flags", () => {
  assert.deepEqual(
    reviewRequestFrom(
      { range: "a..b", plan: "p.md", bg: true, timeout: 5000, worker: "claude" },
      [],
    ),
    { range: "a..b", plan: "p.md", worker: "claude", timeoutMs: 5000, background: true },
  );
  assert.throws(() => reviewRequestFrom({}, ["a", "b"]), /one run at a time/);
});

Deno.test("clipDiff() cuts a long diff at a line and says how much is left out", () => {
  const diff = Array.from({ length: 100 }, (_, i) => `+line ${i}`).join("\n") + "\n";
  assert.equal(clipDiff(diff), diff);
  const clipped = clipDiff(diff, 50);
  assert.match(clipped, /^\+line 0\n/);
  assert.match(clipped, /\[the diff is clipped here: \d+ more lines are not shown/);
  assert.ok(clipped.length < 200);
});
