import assert from "node:assert/strict";
import { join } from "node:path";
import { loadQuestions } from "../../../src/engine/eval/questions.ts";
import { UsageError } from "../../../src/sys/errors.ts";
import { testSys } from "../../support/sys.ts";
import { tempDir, tempRepo } from "../../support/temp.ts";

const FILES = {
  "src/retry.ts": "// retries\n\nexport function retry() {}\n// TODO: jitter\n",
  "src/a.ts": 'import { retry } from "./retry.ts";\n// TODO one\n// TODO two\n',
  "src/b.ts": 'import { retry } from "./retry.ts";\n',
  "docs/notes.md": "retry() is in src\n",
};

async function load(repo: string, content: unknown) {
  await using state = await tempDir("pitroom-eval-state-");
  const file = join(repo, "questions.json");
  await Deno.writeTextFile(file, typeof content === "string" ? content : JSON.stringify(content));
  return await loadQuestions(testSys({ stateDir: state.path, cwd: repo }), file);
}

Deno.test("loadQuestions() computes grep truths at the start and takes literal ones as given", async () => {
  await using repo = await tempRepo(FILES);
  const { questions, dir } = await load(repo.path, {
    schemaVersion: 1,
    questions: [
      {
        id: "def",
        kind: "definition",
        question: "Where?",
        truth: { grep: "^export function retry\\b" },
      },
      { id: "lit", kind: "definition", question: "Where?", truth: "./src/retry.ts:3" },
      { id: "todos", kind: "count", question: "How many?", truth: { grep: "TODO", path: "src" } },
      {
        id: "users",
        kind: "files",
        question: "Which?",
        truth: { grep: 'from "./retry.ts"', fixed: true },
      },
      { id: "given", kind: "files", question: "Which?", truth: ["./b", "a"] },
    ],
  });
  assert.equal(dir, repo.path);
  assert.deepEqual(questions.map((q) => q.truth), [
    { kind: "definition", path: "src/retry.ts", line: 3 },
    { kind: "definition", path: "src/retry.ts", line: 3 },
    { kind: "count", count: 3 },
    { kind: "files", files: ["src/a.ts", "src/b.ts"] },
    { kind: "files", files: ["a", "b"] },
  ]);
});

async function refusal(repo: string, content: unknown): Promise<string> {
  try {
    await load(repo, content);
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    assert.equal(error.exit, 2);
    assert.ok(!error.message.includes("\n"), "one line");
    return error.message;
  }
  throw new Error("no error");
}

Deno.test("a bad questions file is one usage error line naming the first problem: the question, the field, in words", async () => {
  await using repo = await tempRepo(FILES);
  assert.match(await refusal(repo.path, "{nope"), /^Questions file ".+" is not JSON: /);
  assert.match(
    await refusal(repo.path, { questions: [{ id: "x", kind: "guess", question: "q", truth: 1 }] }),
    /is not valid: question 1 \("x"\): the field "kind" is the text "guess"; it must be one of definition, count, files$/,
  );
  assert.match(
    await refusal(repo.path, {
      questions: [{ id: "x", kind: "count", question: "q", truth: "7" }],
    }),
    /is not valid: question 1 \("x"\): the field "truth" is the text "7"; it must be a number or an object$/,
  );
  assert.match(
    await refusal(repo.path, {
      questions: [{ id: "x", kind: "definition", question: "q", truth: "src/retry.ts" }],
    }),
    /question 1 \("x"\): the field "truth" is the text "src\/retry\.ts"; it must be a path:line$/,
  );
  assert.match(
    await refusal(repo.path, {
      questions: [
        { id: "a", kind: "count", question: "q", truth: 1 },
        { id: "b", kind: "files", question: "q", truth: { grep: "" } },
      ],
    }),
    /is not valid: question 2 \("b"\): the field "truth\.grep" is empty$/,
  );
  assert.match(
    await refusal(repo.path, { questions: [{ id: "x", kind: "count", truth: 1 }] }),
    /is not valid: question 1 \("x"\): the field "question" is missing \(a text\)$/,
  );
  assert.match(
    await refusal(repo.path, {
      questions: [{ id: "x", kind: "count", question: "q", truth: 1, z: 1 }],
    }),
    /is not valid: question 1 \("x"\) has a field it does not know: "z"$/,
  );
  assert.match(
    await refusal(repo.path, [1]),
    /is not valid: the file is a list; it must be an object$/,
  );
  assert.match(
    await refusal(repo.path, { questions: [], extra: 1 }),
    /is not valid: the field "questions" is empty; it needs at least 1$/,
  );
  assert.match(
    await refusal(repo.path, {
      questions: [{ id: "x", kind: "count", question: "q", truth: 1 }],
      extra: 1,
    }),
    /is not valid: the file has a field it does not know: "extra"$/,
  );
  const twice = { id: "x", kind: "count", question: "q", truth: 1 };
  assert.match(await refusal(repo.path, { questions: [twice, twice] }), /question id "x" twice/);
  assert.match(
    await refusal(repo.path, {
      questions: [{ id: "x", kind: "definition", question: "q", truth: { grep: "retry" } }],
    }),
    /the truth of question "x" matches 4 lines with git grep, not one/,
  );
  assert.match(
    await refusal(repo.path, { dir: "nowhere", questions: [twice] }),
    /dir ".+nowhere" is not a directory/,
  );
});
