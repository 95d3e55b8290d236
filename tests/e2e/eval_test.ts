/**
 * `pitroom eval` end to end: a repository made here, truths computed with git grep at the start,
 * codex and claude on the scripted model server answering every question at once (each
 * question names its scenario), and each scoring rule seen in the table and the JSON: a
 * definition at the line, in the right file, in another file; an exact and a wrong count; a
 * list exact, with an invented file and with a missed one; a reply without an ANSWER line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { EvalResult } from "../../src/engine/mod.ts";
import { renderEval } from "../../src/cli/eval.ts";
import { world } from "./_world.ts";

const FILES = {
  "src/retry.ts": "// retries\n\nexport function retry() {}\n// TODO: jitter\n",
  "src/a.ts": 'import { retry } from "./retry.ts";\n// TODO one\n// TODO two\n',
  "src/b.ts": 'import { retry } from "./retry.ts";\n',
  "README.md": "# app\n",
};

const say = (answer: string) => ({ turns: [{ read: "src/retry.ts" }, { answer }] });

const SCENARIOS = {
  "def-line": say("It is at src/retry.ts:3.\n\nANSWER: src/retry.ts:3"),
  "def-file": say("ANSWER: src/retry.ts:1"),
  "def-wrong": say("ANSWER: src/a.ts:1"),
  "count-exact": say("Counted with grep.\n\nANSWER: 3"),
  "count-wrong": say("ANSWER: 2"),
  "files-exact": say("ANSWER:\n- src/a.ts\n- src/b.ts"),
  "files-invented": say("ANSWER:\n- src/a.ts\n- src/b.ts\n- src/c.ts"),
  "files-missed": say("ANSWER:\n- src/a.ts"),
  "no-answer": say("It is somewhere in src, I think."),
  eval: say("unused"),
};

const DEF = { grep: "^export function retry\\b" };
const TODOS = { grep: "TODO", path: "src" };
const USERS = { grep: 'from "./retry.ts"', fixed: true };

function q(id: string, kind: string, truth: unknown) {
  return { id, kind, question: `[[scenario:${id}]] Answer about retry.`, truth };
}

const QUESTIONS = {
  schemaVersion: 1,
  questions: [
    q("def-line", "definition", DEF),
    q("def-file", "definition", DEF),
    q("def-wrong", "definition", "src/retry.ts:3"),
    q("count-exact", "count", TODOS),
    q("count-wrong", "count", 3),
    q("files-exact", "files", USERS),
    q("files-invented", "files", USERS),
    q("files-missed", "files", ["src/a.ts", "src/b.ts"]),
    q("no-answer", "definition", DEF),
  ],
};

Deno.test("eval: codex and claude answer every question at once; each scoring rule shows in the JSON and the table", async () => {
  await using w = await world(SCENARIOS, { files: FILES });
  const outside = await Deno.makeTempDir({ prefix: "pitroom-eval-" });
  try {
    const file = join(outside, "questions.json");
    await Deno.writeTextFile(file, JSON.stringify({ ...QUESTIONS, dir: w.repo }));
    const workers = ["-W", "codex:fake/eval", "-W", "claude:eval"];
    const r = await w.run(["eval", file, ...workers, "-t", "120s", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as EvalResult;
    assert.equal(result.dir, w.repo);
    assert.deepEqual(result.questions.map((x) => x.truth), [
      { kind: "definition", path: "src/retry.ts", line: 3 },
      { kind: "definition", path: "src/retry.ts", line: 3 },
      { kind: "definition", path: "src/retry.ts", line: 3 },
      { kind: "count", count: 3 },
      { kind: "count", count: 3 },
      { kind: "files", files: ["src/a.ts", "src/b.ts"] },
      { kind: "files", files: ["src/a.ts", "src/b.ts"] },
      { kind: "files", files: ["src/a.ts", "src/b.ts"] },
      { kind: "definition", path: "src/retry.ts", line: 3 },
    ]);
    assert.deepEqual(result.workers.map((row) => row.worker), [
      "codex:fake/eval",
      "claude:eval",
    ]);
    for (const row of result.workers) {
      const scores = Object.fromEntries(row.answers.map((a) => [a.id, a.score]));
      assert.deepEqual(scores, {
        "def-line": 1,
        "def-file": 0.5,
        "def-wrong": 0,
        "count-exact": 1,
        "count-wrong": 0,
        "files-exact": 1,
        "files-invented": 0.8,
        "files-missed": 0.667,
        "no-answer": 0,
      }, row.worker);
      assert.deepEqual(row.byKind, {
        definition: { score: 1.5, max: 4 },
        count: { score: 1, max: 2 },
        files: { score: 2.467, max: 3 },
      });
      assert.equal(row.score, 4.967);
      assert.equal(row.failures, 1);
      assert.equal(
        row.answers.find((a) => a.id === "no-answer")?.failure,
        "the reply has no ANSWER line",
      );
      assert.ok(row.medianMs !== null && row.medianMs > 0);
      assert.ok(row.medianTokens !== null && row.medianTokens > 0);
    }
    // Every question was a read run of the worker's own group; none changed the tree.
    const record = await w.record(result.workers[1]!.answers[0]!.run);
    assert.equal(record.mode, "read");
    assert.deepEqual(record.attempts.map((a) => a.worker), ["claude"]);
    assert.equal(record.group, result.workers[1]!.group);

    // The table is the same result as text (what `pitroom eval` prints without --json).
    const text = renderEval(result);
    assert.match(
      text,
      /WORKER\s+SCORE\s+DEFINITION\s+COUNT\s+FILES\s+FAILURES\s+MEDIAN TIME\s+MEDIAN TOKENS/,
    );
    assert.match(text, /codex:fake\/eval\s+4\.97\/9\s+1\.5\/4\s+1\/2\s+2\.47\/3\s+1\s+/);
    assert.match(text, /claude:eval\s+4\.97\/9\s+/);
    assert.match(text, /codex:fake\/eval {2}no-answer {2}0 {2}the reply has no ANSWER line/);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("eval: a bad questions file is one error line and exit 2, before any run", async () => {
  await using w = await world({});
  const file = join(w.repo, "bad.json");
  await Deno.writeTextFile(file, JSON.stringify({ questions: [{ id: "x", kind: "count" }] }));
  const r = await w.run(["eval", file]);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^pitroom: Questions file ".+bad\.json" is not valid: question 1 \("x"\): the field "question" is missing/,
  );
  assert.equal(r.stderr.trim().split("\n").length <= 2, true, r.stderr);
  assert.equal(r.stdout, "");
});
