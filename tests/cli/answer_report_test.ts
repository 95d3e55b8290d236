import assert from "node:assert/strict";
import { renderBrief, renderReport } from "../../src/cli/report.ts";
import { briefLine } from "../../src/cli/watch.ts";
import { LiveFold } from "../../src/engine/follow/fold.ts";
import type { RunRecord } from "../../src/store/record.ts";

function record(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    schemaVersion: 1,
    id: "20261201-101500-3f2a",
    state: "done",
    mode: "read",
    task: "Where is the retry policy?",
    cwd: "/repo",
    chain: [{ worker: "opencode", model: "fake/a" }],
    web: false,
    timeoutMs: 1_800_000,
    createdAt: 1_000,
    startedAt: 1_000,
    endedAt: 13_000,
    attempts: [{ worker: "opencode", model: "fake/a", startedAt: 1_000, outcome: "ok" }],
    progress: { steps: 2, tools: 0, tokens: { input: 10, output: 5, cached: 0, reasoning: 0 } },
    outcome: "ok",
    exit: 0,
    answer: "## Summary\nIn src/retry.ts:12.\n## Findings\n- src/retry.ts:12 - three tries",
    ...overrides,
  };
}

Deno.test("renderReport() shows the reference check with each failure and the evidence flags", () => {
  const text = renderReport(
    record({
      refs: {
        verified: 1,
        total: 2,
        failed: [{
          ref: "src/retry.ts:90",
          reason: "line 90 is past the end of the file (40 lines)",
        }],
      },
      evidence: [{
        kind: "no_tool_calls",
        message: "The worker answered without a single tool call",
      }],
    }),
    20_000,
  );
  assert.match(text, /^refs {5}1\/2 verified$/m);
  assert.match(
    text,
    /^ {9}✗ src\/retry\.ts:90: line 90 is past the end of the file \(40 lines\)$/m,
  );
  assert.match(text, /^flagged {2}The worker answered without a single tool call$/m);
  assert.match(text, /## Summary\n {2}In src\/retry\.ts:12\./, "the answer is shown whole");
});

Deno.test("renderReport() says a cached answer is cached and from which run", () => {
  const text = renderReport(
    record({ cached: { from: "20261130-090000-aaaa", at: 5_000 }, attempts: [] }),
    20_000,
  );
  assert.match(
    text,
    /^cached {3}the answer of run 20261130-090000-aaaa \(ended .+\); no worker ran, --fresh asks again$/m,
  );
});

Deno.test("the done line carries refs and the answer's summary", () => {
  const done = record({
    refs: { verified: 5, total: 5, failed: [] },
    sections: {
      summary: "In src/retry.ts:12.",
      findings: [],
      filesChanged: [],
      verified: [],
      openIssues: [],
    },
  });
  const line = new LiveFold().end(done, 20_000);
  assert.deepEqual(JSON.parse(JSON.stringify(line)), {
    event: "done",
    run: done.id,
    time: "12s",
    worker: "opencode (fake/a)",
    summary: "In src/retry.ts:12.",
    refs: "5/5",
  });
  assert.match(briefLine(line)!, /· refs 5\/5 · In src\/retry\.ts:12\.$/);
});

Deno.test("renderBrief() shows a formatted answer's summary, an unformatted one as it is", () => {
  const sections = {
    summary: "In src/retry.ts:12.",
    findings: [],
    filesChanged: [],
    verified: [],
    openIssues: [],
  };
  assert.match(renderBrief(record({ sections }), 20_000), /opencode \(fake\/a\) {2}In src\/retry/);
  assert.match(renderBrief(record({ answer: "Plain text" }), 20_000), / {2}Plain text\n$/);
});
