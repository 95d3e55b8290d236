import assert from "node:assert/strict";
import { parseAudit } from "../../../src/engine/audit/verdict.ts";

Deno.test("parseAudit() reads AGREE with DISPUTED: none", () => {
  assert.deepEqual(parseAudit("All checked.\n\nAUDIT: AGREE\nDISPUTED: none\n"), {
    ok: true,
    verdict: "AGREE",
    disputed: [],
  });
});

Deno.test("parseAudit() reads a bold verdict and a list of claims, a wrapped claim joined", () => {
  const text = [
    "**AUDIT: PARTLY**",
    "",
    "DISPUTED:",
    "- src/a.ts:3 is not where retry is defined",
    "  (it is src/b.ts:9)",
    "1. the count is 4, not 5",
    "",
    "That is all.",
  ].join("\n");
  assert.deepEqual(parseAudit(text), {
    ok: true,
    verdict: "PARTLY",
    disputed: [
      "src/a.ts:3 is not where retry is defined (it is src/b.ts:9)",
      "the count is 4, not 5",
    ],
  });
});

Deno.test("parseAudit() fails a reply without a verdict line, never reading it as AGREE", () => {
  const parsed = parseAudit("I agree with the answer, it looks right.");
  assert.deepEqual(parsed, { ok: false, message: "the reply has no AUDIT line" });
});

Deno.test("parseAudit() fails an unknown verdict word, two verdicts, and verdicts that contradict their list", () => {
  assert.equal(parseAudit("AUDIT: MOSTLY").ok, false);
  assert.match(
    (parseAudit("AUDIT: AGREE\nlater\nAUDIT: DISAGREE\nDISPUTED:\n- x") as { message: string })
      .message,
    /two verdicts/,
  );
  assert.match(
    (parseAudit("AUDIT: AGREE\nDISPUTED:\n- a wrong claim") as { message: string }).message,
    /says AGREE but disputes 1/,
  );
  assert.match(
    (parseAudit("AUDIT: DISAGREE\nDISPUTED: none") as { message: string }).message,
    /lists no disputed claim/,
  );
  // A sentence that merely mentions the word is no verdict line.
  assert.equal(parseAudit("My AUDIT: AGREE, mostly").ok, false);
});

Deno.test("parseAudit() takes a claim given on the DISPUTED line itself", () => {
  assert.deepEqual(parseAudit("AUDIT: DISAGREE\nDISPUTED: the function does not exist"), {
    ok: true,
    verdict: "DISAGREE",
    disputed: ["the function does not exist"],
  });
});
