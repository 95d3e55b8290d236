import assert from "node:assert/strict";
import { needsFixes, parseVerdict } from "../../src/engine/review/verdict.ts";

Deno.test("parseVerdict() reads both verdicts, findings with file and line, CANNOT VERIFY", () => {
  const v = parseVerdict([
    "Reviewed.",
    "**SPEC:** FAIL",
    "QUALITY: NEEDS-FIXES",
    "FINDINGS:",
    "- [Critical] src/a.ts:12 — the check is inverted",
    "- **Important:** `src/b/c.ts:7` misses the empty case",
    "- [Minor] README.md#L3 typo",
    "CANNOT VERIFY:",
    "- the caller in src/server.ts uses the new name",
  ].join("\n"));
  assert.equal(v.spec, "FAIL");
  assert.equal(v.quality, "NEEDS-FIXES");
  assert.equal(v.complete, true);
  assert.deepEqual(v.findings.map((f) => [f.severity, f.file, f.line]), [
    ["Critical", "src/a.ts", 12],
    ["Important", "src/b/c.ts", 7],
    ["Minor", "README.md", 3],
  ]);
  assert.deepEqual(v.cannotVerify, ["the caller in src/server.ts uses the new name"]);
  assert.equal(needsFixes(v), true);
});

Deno.test("parseVerdict() reads findings under severity headings", () => {
  const v = parseVerdict(
    "SPEC: PASS\nQUALITY: APPROVED\n\n### Important\n- lib/x.py:40 leaks a handle\n\n### Minor\n* none\n\nCANNOT VERIFY: none",
  );
  assert.deepEqual(v.findings.map((f) => [f.severity, f.file, f.line]), [
    ["Important", "lib/x.py", 40],
  ]);
  assert.deepEqual(v.cannotVerify, []);
  assert.equal(needsFixes(v), true);
  const clean = parseVerdict(
    "SPEC: PASS\nQUALITY: APPROVED\nFINDINGS:\n- none\nCANNOT VERIFY:\n- none",
  );
  assert.deepEqual(clean.findings, []);
  assert.equal(needsFixes(clean), false);
});

Deno.test("parseVerdict() marks a review without both verdict lines incomplete", () => {
  for (
    const answer of [
      "",
      "Looks good to me!",
      "SPEC: PASS",
      "QUALITY: APPROVED",
      "SPEC: MAYBE\nQUALITY: APPROVED",
      "SPEC PASS\nQUALITY APPROVED",
      "The SPEC: PASS line goes first",
      "SPEC: PASS | FAIL\nQUALITY: APPROVED | NEEDS-FIXES",
    ]
  ) {
    const v = parseVerdict(answer);
    assert.equal(v.complete, false, JSON.stringify(answer));
    assert.equal(needsFixes(v), true, JSON.stringify(answer));
  }
});

Deno.test("parseVerdict() does not take ordinary bullets for findings", () => {
  const v = parseVerdict(
    "SPEC: PASS\nQUALITY: APPROVED\nSummary:\n- important changes in src/a.ts:1\n- minor refactor",
  );
  assert.deepEqual(v.findings, []);
});
