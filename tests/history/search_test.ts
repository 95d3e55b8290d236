import assert from "node:assert/strict";
import { historyCommand, searchFilter } from "../../src/cli/history.ts";
import { withHistory } from "../../src/store/history/ready.ts";
import { indexRun } from "../../src/store/history/mod.ts";
import { ftsQuery } from "../../src/engine/history/query.ts";
import { type SearchFilter, searchRuns } from "../../src/engine/history/search.ts";
import { UsageError } from "../../src/sys/errors.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";
import { type FakeRun, writeFakeRun } from "./_fixtures.ts";

const DAY = 86_400_000;
const NOW = Date.now();

const RUNS: FakeRun[] = [
  {
    task: "Where is the retry policy defined?",
    answer: "In src/net/retry.ts:12, with exponential backoff",
    tools: [{ kind: "read", target: "src/net/retry.ts" }],
    endedAt: NOW - 40 * DAY,
    model: "big-pickle",
  },
  {
    task: "Fix the login bug",
    answer: "Fixed the session check",
    tools: [{ kind: "shell", target: "deno task test", error: "exit 1: 3 tests failed" }],
    endedAt: NOW - 3 * DAY,
    mode: "write",
    worker: "codex",
    model: "gpt-5.5",
    group: "auth",
  },
  {
    task: "Summarise docs/architecture.md",
    texts: ["Looking at the retry section first"],
    endedAt: NOW - 2 * DAY,
    outcome: "rate_limited",
    worker: "gemini",
    model: "gemini-2.5-flash",
  },
  {
    task: "Count the files that import zod",
    answer: "Seven files import zod",
    endedAt: NOW - DAY,
    outcome: "timeout",
    worker: "claude",
    group: "auth",
  },
  {
    task: "Explain the café menu parser",
    answer: "The parser reads a CSV of dishes",
    endedAt: NOW - 1000,
    model: "big-pickle",
  },
];

async function indexed() {
  const state = await tempDir("pitroom-history-");
  const sys = testSys({ stateDir: state.path });
  const ids: string[] = [];
  for (const run of RUNS) {
    const record = await writeFakeRun(state.path, run);
    await indexRun(sys, record);
    ids.push(record.id);
  }
  return { sys, ids, [Symbol.asyncDispose]: () => state[Symbol.asyncDispose]() };
}

function find(sys: ReturnType<typeof testSys>, filter: SearchFilter, limit?: number) {
  return withHistory(
    sys,
    (db) => searchRuns(db, filter, { ...(limit ? { limit } : {}), marks: ["[", "]"] }),
  );
}

Deno.test("ftsQuery() quotes words, keeps phrases and prefixes, drops bare punctuation", () => {
  assert.equal(ftsQuery("login bug"), '"login" "bug"');
  assert.equal(
    ftsQuery('retry-policy (v2): "exact phrase" pars*'),
    '"retry-policy" "(v2):" "exact phrase" "pars"*',
  );
  assert.equal(ftsQuery('say "hi'), '"say" "hi"');
  assert.equal(ftsQuery('it\'s "a ""b"'), '"it\'s" "a " "b"');
  assert.equal(ftsQuery("  -- ** ()"), null);
});

Deno.test("history search finds words in the task, the answer and the steps, newest first", async () => {
  await using t = await indexed();
  const [oldest, login, summary] = t.ids;
  // "retry" is in the first run's task and answer, and in the third run's worker text.
  const hits = await find(t.sys, { text: "retry" });
  assert.deepEqual(hits.map((h) => h.id), [summary, oldest]);
  assert.match(hits[1]!.snippet!, /\[retry\]/);
  // A tool call's target and its error are searchable.
  assert.deepEqual((await find(t.sys, { text: "tests failed" })).map((h) => h.id), [login]);
  // Every word must match.
  assert.deepEqual(await find(t.sys, { text: "retry login" }), []);
  // Prefixes, diacritics and query syntax typed as text.
  assert.equal((await find(t.sys, { text: "backo*" })).length, 1);
  assert.equal((await find(t.sys, { text: "cafe" })).length, 1);
  assert.equal((await find(t.sys, { text: 'src/net/retry.ts:12 "Backoff" ( -' })).length, 1);
});

Deno.test("history search filters by model, worker, state, outcome, group and period", async () => {
  await using t = await indexed();
  const [oldest, login, summary, count, cafe] = t.ids;
  const ids = async (filter: SearchFilter) => (await find(t.sys, filter)).map((h) => h.id);
  assert.deepEqual(await ids({ model: "big-pickle" }), [cafe, oldest]);
  assert.deepEqual(await ids({ model: "codex:gpt-5.5" }), [login]);
  assert.deepEqual(await ids({ worker: "claude" }), [count]);
  assert.deepEqual(await ids({ state: "problem" }), [count, summary]);
  assert.deepEqual(await ids({ outcome: "rate_limited" }), [summary]);
  assert.deepEqual(await ids({ group: "auth" }), [count, login]);
  assert.deepEqual(await ids({ since: NOW - 7 * DAY }), [cafe, count, summary, login]);
  assert.deepEqual(await ids({ text: "retry", since: NOW - 7 * DAY }), [summary]);
  assert.deepEqual(await ids({ text: "zod", state: "done" }), []);
  assert.deepEqual((await find(t.sys, {}, 2)).map((h) => h.id), [cafe, count]);
});

Deno.test("searchFilter() reads --state as a state, problem or an outcome, and refuses live states", () => {
  assert.deepEqual(searchFilter({ state: "problem" }, "", NOW), { state: "problem" });
  assert.deepEqual(searchFilter({ state: "quota", model: "m" }, " x ", NOW), {
    outcome: "quota",
    model: "m",
    text: " x ",
  });
  assert.deepEqual(searchFilter({ since: "30d" }, "", NOW), { since: NOW - 30 * DAY });
  assert.throws(() => searchFilter({ state: "running" }, "", NOW), /finished runs only/);
  assert.throws(() => searchFilter({ state: "broken" }, "", NOW), UsageError);
  assert.throws(() => searchFilter({ since: "soon" }, "", NOW), /Invalid --since/);
});

Deno.test("pitroom history prints hits with snippets, highlighted only on a colour terminal", async () => {
  await using t = await indexed();
  assert.equal(await historyCommand({ sys: t.sys, flags: {}, args: ["exponential"] }), 0);
  const plain = t.sys.stdoutText();
  assert.match(plain, new RegExp(`^${t.ids[0]}  done  read  1s  opencode:big-pickle  `));
  assert.match(plain, /\n {2}Where is the retry policy defined\?\n {2}.*exponential backoff/);
  assert.ok(!plain.includes("\x1b["));

  let out = "";
  const tty = {
    ...t.sys,
    out: { ...t.sys.out, stdout: (s: string) => (out += s), isTTY: true, color: true },
  };
  await historyCommand({ sys: tty, flags: {}, args: ["exponential"] });
  assert.ok(out.includes("\x1b[1;33mexponential\x1b[0m"), out);
});

Deno.test("pitroom history --json is a list of runs with the snippet marked by **", async () => {
  await using t = await indexed();
  await historyCommand({ sys: t.sys, flags: { json: true, worker: "codex" }, args: ["login"] });
  const hits = JSON.parse(t.sys.stdoutText());
  assert.equal(hits.length, 1);
  assert.deepEqual(Object.keys(hits[0]).sort(), [
    "answer",
    "changedFiles",
    "createdAt",
    "durationMs",
    "endedAt",
    "exit",
    "group",
    "host",
    "id",
    "message",
    "mode",
    "model",
    "outcome",
    "refs",
    "saved",
    "snippet",
    "state",
    "task",
    "worker",
  ]);
  assert.equal(hits[0].snippet, "Fix the **login** bug");
});

Deno.test("pitroom history refuses flags its subcommand does not take", async () => {
  await using t = await indexed();
  await assert.rejects(
    historyCommand({ sys: t.sys, flags: { model: "x" }, args: ["import"] }),
    /`pitroom history import` takes no --model/,
  );
  await assert.rejects(
    historyCommand({ sys: t.sys, flags: {}, args: ["stats", "extra"] }),
    /Too many arguments/,
  );
  await assert.rejects(historyCommand({ sys: t.sys, flags: { limit: 0 }, args: [] }), /--limit/);
});
