import assert from "node:assert/strict";
import { f1, parseAnswered, scoreAnswer } from "../../../src/engine/eval/mod.ts";

Deno.test("parseAnswered() reads the last ANSWER line of each kind", () => {
  assert.deepEqual(parseAnswered("See src/a.ts:3.\n\nANSWER: `./src/a.ts:3`", "definition"), {
    kind: "definition",
    path: "src/a.ts",
    line: 3,
  });
  assert.deepEqual(parseAnswered("ANSWER: 2\nno, recounted:\n**ANSWER:** 1,204", "count"), {
    kind: "count",
    count: 1204,
  });
  assert.deepEqual(
    parseAnswered("Found them.\n\nANSWER:\n- `src/b.ts`\n- ./src/a.ts:12\n\nDone.", "files"),
    { kind: "files", files: ["src/a.ts", "src/b.ts"] },
  );
  assert.deepEqual(parseAnswered("ANSWER: src/a.ts, src/c.ts", "files"), {
    kind: "files",
    files: ["src/a.ts", "src/c.ts"],
  });
  // Absolute paths under the directory asked about count as relative ones.
  assert.deepEqual(parseAnswered("ANSWER: /repo/src/a.ts:3", "definition", "/repo"), {
    kind: "definition",
    path: "src/a.ts",
    line: 3,
  });
});

Deno.test("parseAnswered() gives null without an ANSWER line or without a value", () => {
  assert.equal(parseAnswered("It is in src/a.ts:3", "definition"), null);
  assert.equal(parseAnswered("ANSWER: somewhere in src", "definition"), null);
  assert.equal(parseAnswered("ANSWER: many", "count"), null);
});

Deno.test("scoreAnswer(): a definition scores 1 at the line, 0.5 in the right file, 0 elsewhere", () => {
  const truth = { kind: "definition" as const, path: "src/a.ts", line: 3 };
  assert.equal(scoreAnswer({ kind: "definition", path: "src/a.ts", line: 3 }, truth), 1);
  assert.equal(scoreAnswer({ kind: "definition", path: "src/a.ts", line: 9 }, truth), 0.5);
  assert.equal(scoreAnswer({ kind: "definition", path: "src/b.ts", line: 3 }, truth), 0);
  assert.equal(scoreAnswer(null, truth), 0);
});

Deno.test("scoreAnswer(): a count scores only when exact", () => {
  const truth = { kind: "count" as const, count: 7 };
  assert.equal(scoreAnswer({ kind: "count", count: 7 }, truth), 1);
  assert.equal(scoreAnswer({ kind: "count", count: 6 }, truth), 0);
  assert.equal(scoreAnswer({ kind: "count", count: 8 }, truth), 0);
});

Deno.test("f1(): missed files lower the recall, invented files the precision", () => {
  const truth = ["a", "b", "c", "d"];
  assert.equal(f1(truth, truth), 1);
  assert.equal(f1(["a", "b"], truth), 2 * (1 * 0.5) / 1.5);
  assert.equal(f1([...truth, "x", "y", "z", "w"], truth), 2 * (0.5 * 1) / 1.5);
  assert.equal(f1(["x"], truth), 0);
  assert.equal(f1([], truth), 0);
  assert.equal(f1([], []), 1);
  assert.equal(f1(["x"], []), 0);
  // An invented file costs even when every true one is there.
  assert.ok(f1([...truth, "x"], truth) < 1);
});
