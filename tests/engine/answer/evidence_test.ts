import assert from "node:assert/strict";
import { join } from "node:path";
import {
  checkEvidence,
  countClaims,
  type EvidenceInput,
} from "../../../src/engine/answer/evidence.ts";
import { parseAnswer } from "../../../src/engine/answer/format.ts";
import { grepCounts } from "../../../src/vcs/grep.ts";
import { testSys } from "../../support/sys.ts";
import { git, tempDir, tempRepo } from "../../support/temp.ts";

const FILES = {
  "src/a.ts": "retry();\nretry(); retry();\n",
  "src/b.ts": "export function retry() {}\n",
  "lib/c.ts": "// Retry here\nretry();\n",
  "tests/a_test.ts": "test('a');\n",
  "docs/guide.md": "# Guide\n",
};

async function setup() {
  const repo = await tempRepo(FILES);
  // Untracked files count as the worker saw them; ignored ones do not.
  await Deno.writeTextFile(join(repo.path, "src/new.ts"), "retry();\n");
  await Deno.writeTextFile(join(repo.path, ".gitignore"), "dist/\n");
  await Deno.mkdir(join(repo.path, "dist"));
  await Deno.writeTextFile(join(repo.path, "dist/out.js"), "retry();retry();\n");
  const state = await tempDir();
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  const files = [...(await git(repo.path, "ls-files")).split("\n").filter(Boolean), "src/new.ts"];
  const input = (answer: string, more: Partial<EvidenceInput> = {}): EvidenceInput => ({
    answer,
    parsed: parseAnswer(answer),
    mode: "read",
    tools: 3,
    attached: false,
    changed: [],
    tree: {
      files,
      cwd: "",
      roots: [repo.path],
      read: (path) => Deno.readTextFile(join(repo.path, path)).catch(() => null),
    },
    count: (text, scope, options) => grepCounts(sys, repo.path, text, { scope, ...options }),
    ...more,
  });
  return {
    input,
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

Deno.test("countClaims() reads only the clear forms with a quoted string", () => {
  const claims = countClaims([
    "There are 6 occurrences of `retry(` in src/.",
    '3 files contain "retry".',
    "`retry` appears 7 times under lib.",
    "'retry' is used in 4 files.",
    "About 5 uses of retry.", // not quoted: not a claim
    "12 matches of `re.*try`", // a pattern, not a string
  ].join("\n"));
  assert.deepEqual(claims.map((c) => [c.n, c.unit, c.text, c.scope]), [
    [6, "occurrences", "retry(", "src"],
    [3, "files", "retry", undefined],
    [7, "occurrences", "retry", "lib"],
    [4, "files", "retry", undefined],
  ]);
});

Deno.test("checkEvidence() holds a stated count against git grep over the cited scope", async () => {
  await using t = await setup();
  // In src/: a.ts has 3, new.ts (untracked) 1, b.ts 1 (the definition): 5 in 3 files.
  const right = await checkEvidence(t.input(
    "There are 5 occurrences of `retry(` in src/. `retry` is used in 4 files. " +
      '"Retry" appears 6 times.',
  ));
  assert.deepEqual(right, []);
  const wrong = await checkEvidence(t.input(
    "There are 9 occurrences of `retry(` in `src/`. 2 files contain `retry` in lib/.",
  ));
  assert.deepEqual(wrong.map((f) => [f.kind, f.message]), [
    [
      "count_mismatch",
      'The answer says "9 occurrences of `retry(` in `src/`"; git grep finds 5 occurrence(s) in 3 file(s) in `src`',
    ],
    [
      "count_mismatch",
      'The answer says "2 files contain `retry` in lib/"; git grep finds 1 file(s) in `lib`',
    ],
  ]);
});

Deno.test("checkEvidence() flags a read answer given with no tool call, unless files were attached", async () => {
  await using t = await setup();
  const flags = await checkEvidence(t.input("It is in src/a.ts:1.", { tools: 0 }));
  assert.deepEqual(flags.map((f) => f.kind), ["no_tool_calls"]);
  assert.deepEqual(
    await checkEvidence(t.input("It is in src/a.ts:1.", { tools: 0, attached: true })),
    [],
  );
  assert.deepEqual(
    await checkEvidence(t.input("It is in src/a.ts:1.", { tools: 0, mode: "write" })),
    [],
  );
});

Deno.test("checkEvidence() flags files and tests an answer names that do not exist, and changes it did not make", async () => {
  await using t = await setup();
  const answer = [
    "## Summary",
    "Done; see `src/a.ts` and `src/` and `docs/missing.md` (built into `dist/out.js`).",
    "## Files changed",
    "- `src/a.ts` - renamed the call",
    "- src/ghost.ts - added",
    "## Verified",
    "- ran `deno test tests/a_test.ts` and tests/b_test.ts",
    "- ran `npm test` (`/usr/bin/env` is fine, so is https://example.com/x.ts)",
    "- imports `@scope/pkg/index.js` and reads `~/.config/app/config.json`",
  ].join("\n");
  const flags = await checkEvidence(t.input(answer, { mode: "write", changed: ["src/a.ts"] }));
  assert.deepEqual(flags.map((f) => [f.kind, f.message]), [
    ["not_changed", "The answer says it changed `src/ghost.ts`, but the run changed no such file"],
    ["missing_file", "The answer names `docs/missing.md`, which does not exist in the tree"],
    ["missing_file", "The answer names `tests/b_test.ts`, which does not exist in the tree"],
  ]);
});
