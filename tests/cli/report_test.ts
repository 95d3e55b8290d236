import assert from "node:assert/strict";
import { renderBrief, renderReport } from "../../src/cli/report.ts";
import type { RunRecord } from "../../src/store/record.ts";

function record(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    schemaVersion: 1,
    id: "20261130-101500-3f2a",
    state: "done",
    mode: "write",
    task: "Make the answer 42",
    cwd: "/repo",
    chain: [{ worker: "opencode", model: "fake/edit" }],
    web: false,
    timeoutMs: 1_800_000,
    createdAt: 1_000,
    startedAt: 1_000,
    endedAt: 13_000,
    attempts: [
      {
        worker: "codex",
        startedAt: 1_000,
        endedAt: 2_000,
        outcome: "rate_limited",
        message: "429",
      },
      { worker: "opencode", model: "fake/edit", startedAt: 2_000, endedAt: 13_000, outcome: "ok" },
    ],
    progress: {
      steps: 3,
      tools: 2,
      last: "edit src/app.ts",
      tokens: { input: 12_345, output: 67, cached: 1_000, reasoning: 0 },
    },
    outcome: "ok",
    exit: 0,
    answer: "Set the answer to 42.",
    changes: {
      before: { tree: "a", head: null, bareDirs: [], ignored: [] },
      after: "b",
      files: [{ path: "src/app.ts", status: "modified", added: 1, removed: 1, binary: false }],
    },
    ...overrides,
  };
}

Deno.test("renderReport() shows state, worker, fallbacks, work, tokens, answer, diffstat and how to revert", () => {
  assert.equal(
    renderReport(record(), 20_000),
    [
      "run 20261130-101500-3f2a · done · write · 12s",
      "worker   opencode (fake/edit)",
      "         tried codex (default model) first: rate_limited (429)",
      "work     3 steps, 2 tool calls · last: edit src/app.ts",
      "tokens   12,345 in (+1,000 cached) / 67 out",
      "",
      "answer:",
      "  Set the answer to 42.",
      "",
      "changed 1 file(s), +1 -1:",
      "  M src/app.ts  +1 -1",
      "",
      "see the diff: pitroom show 20261130-101500-3f2a --patch",
      "undo it:      pitroom revert 20261130-101500-3f2a",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport() of a read-only violation says the change was undone and offers no revert", () => {
  const text = renderReport(
    record({
      mode: "read",
      state: "problem",
      outcome: "read_only_violation",
      exit: 5,
      message: "The worker changed 1 file(s) in a read-only run: undone",
      changes: { ...record().changes!, reverted: true },
    }),
    20_000,
  );
  assert.match(text, /problem {2}The worker changed 1 file\(s\) in a read-only run: undone/);
  assert.match(text, /changed \(undone\) 1 file\(s\)/);
  assert.doesNotMatch(text, /pitroom revert/);
});

Deno.test("renderReport() lists targets skipped while cooling down, with the time they cool until", () => {
  const until = new Date(2026, 10, 30, 14, 5).getTime();
  const text = renderReport(
    record({ skipped: [{ worker: "gemini", model: "gemini-2.5-pro", until }] }),
    until - 60_000,
  );
  assert.match(text, /^ {9}skipped gemini \(gemini-2\.5-pro\): cooling down until 14:05$/m);
});

Deno.test("renderBrief() is one line with the result", () => {
  const line = renderBrief(record(), 20_000);
  assert.equal(line.split("\n").length, 2);
  assert.match(
    line,
    /^20261130-101500-3f2a {2}done {2}write {2}12s {2}opencode \(fake\/edit\) {2}Set the answer to 42\.\n$/,
  );
});

Deno.test("renderReport() clips a long answer and a long change list unless full", () => {
  const long = record({
    answer: Array.from({ length: 250 }, (_, i) => `line ${i}`).join("\n"),
    changes: {
      before: { tree: "a", head: null, bareDirs: [], ignored: [] },
      after: "b",
      files: Array.from({ length: 130 }, (_, i) => ({
        path: `f${i}.ts`,
        status: "modified" as const,
        added: 1,
        removed: 0,
        binary: false,
      })),
    },
  });
  const clipped = renderReport(long, 20_000);
  assert.match(clipped, /… 50 more lines \(`pitroom show 20261130-101500-3f2a --full` prints/);
  assert.match(clipped, /… 30 more files \(`pitroom show 20261130-101500-3f2a --full` prints/);
  assert.doesNotMatch(clipped, /line 249/);
  const full = renderReport(long, 20_000, { full: true });
  assert.match(full, /line 249/);
  assert.match(full, /f129\.ts/);
  assert.doesNotMatch(full, /more lines/);
});

Deno.test("renderReport() says how many tool calls were denied", () => {
  const base = record();
  const denied = record({ progress: { ...base.progress, steps: 2, tools: 1, denied: 1 } });
  assert.match(renderReport(denied, 13_000), /^work {5}2 steps, 1 tool calls \(1 denied\)/m);
  assert.doesNotMatch(renderReport(base, 13_000), /denied/);
});

Deno.test("renderReport() groups numbers without Intl (its first call costs ~10 ms a run)", () => {
  const original = Number.prototype.toLocaleString;
  Number.prototype.toLocaleString = () => {
    throw new Error("toLocaleString called");
  };
  try {
    const text = renderReport(record(), 13_000);
    assert.match(text, /12,345 in \(\+1,000 cached\)/);
  } finally {
    Number.prototype.toLocaleString = original;
  }
});
