/**
 * The real claude CLI (2.1.328) through the process shell against the scripted model server:
 * answers, in-place edits, refusals of the read profile and the write profile's deny rules, and
 * each failure class. Runs as root, which claude accepts because no bypass mode is used.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { claudeBackend } from "../../../src/workers/claude/mod.ts";
import type { Mode, RunSpec } from "../../../src/workers/types.ts";
import { driveBackend } from "../../support/backend_harness.ts";
import { startModelServer } from "../../support/model_server/fixture.ts";
import { git, tempRepo as makeRepo, waitFor } from "../../support/temp.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  assert.deepStrictEqual(actual, expected, message);

const SCENARIOS = {
  "read-answer": {
    turns: [
      { say: "Looking at the file.", read: "a.txt" },
      { grep: "hello" },
      { list: "." },
      { answer: "a.txt says hello world." },
    ],
  },
  "edit-in-place": {
    turns: [
      { edit: { path: "a.txt", old: "hello", new: "goodbye" } },
      { write: { path: "notes/new.txt", content: "new file\n" } },
      { answer: "Changed a.txt and added notes/new.txt." },
    ],
  },
  "read-refusals": {
    turns: [
      { edit: { path: "a.txt", old: "hello", new: "goodbye" } },
      { shell: "echo sneaky > b.txt" },
      { web: "http://127.0.0.1:9/page" },
      { shell: "git log --oneline" },
      { answer: "Nothing could be changed." },
    ],
  },
  "write-denials": {
    turns: [
      { shell: "echo made > made.txt" },
      { shell: "git commit -am sneaky" },
      { shell: "rm -rf sub" },
      { answer: "Made a file; the commit was refused." },
    ],
  },
  "rate-limited": { turns: [{ error: { kind: "rate_limit", retry_after_s: 2 } }] },
  "out-of-credit": { turns: [{ error: { kind: "quota" } }] },
  "bad-key": { turns: [{ error: { kind: "auth" } }] },
  "overloaded": { turns: [{ error: { kind: "overloaded" } }] },
  "hangs": { turns: [{ hang: true }] },
};

/** A temp git repo with one committed file and a folder, removed on dispose. */
async function tempRepo(): Promise<{ dir: string } & AsyncDisposable> {
  const repo = await makeRepo({ "a.txt": "hello world\n", "sub/keep.txt": "keep\n" });
  return { dir: repo.path, [Symbol.asyncDispose]: () => repo[Symbol.asyncDispose]() };
}

function spec(
  env: Record<string, string>,
  cwd: string,
  model: string,
  mode: Mode,
  extra: Partial<RunSpec> = {},
): RunSpec {
  return {
    mode,
    prompt: "Do the scripted task.",
    cwd,
    privateDir: join(cwd, ".git", "pitroom-test-private"),
    model,
    web: false,
    baseEnv: env,
    ...extra,
  };
}

function ofType<K extends WorkerEvent["type"]>(events: WorkerEvent[], type: K) {
  return events.filter((e): e is Extract<WorkerEvent, { type: K }> => e.type === type);
}

Deno.test("claude answers a read task with tool calls, tokens and its session id", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const run = await driveBackend(claudeBackend, spec(server.env, repo.dir, "read-answer", "read"));
  assertEquals(run.outcome.class, "ok", run.stdout.join("\n"));
  assertEquals(ofType(run.events, "worker.answer").map((e) => e.text), [
    "a.txt says hello world.",
  ]);
  const calls = ofType(run.events, "worker.tool_call").map((e) => [e.kind, e.target, e.status]);
  assertEquals(calls, [
    ["read", "a.txt", "ok"],
    ["search", "hello", "ok"],
    ["shell", `ls -la ${repo.dir}`, "ok"],
  ]);
  assertEquals(ofType(run.events, "worker.session").length, 1);
  assert(ofType(run.events, "worker.tokens").reduce((sum, e) => sum + e.output, 0) > 0);
  assertEquals(await git(repo.dir, "status", "--porcelain"), "");
});

Deno.test("claude in write mode edits in place with exactly the scripted change", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const run = await driveBackend(
    claudeBackend,
    spec(server.env, repo.dir, "edit-in-place", "write"),
  );
  assertEquals(run.outcome.class, "ok", run.stdout.join("\n"));
  assertEquals(await Deno.readTextFile(join(repo.dir, "a.txt")), "goodbye world\n");
  assertEquals(await Deno.readTextFile(join(repo.dir, "notes", "new.txt")), "new file\n");
  assertEquals(await git(repo.dir, "status", "--porcelain"), " M a.txt\n?? notes/\n");
  const calls = ofType(run.events, "worker.tool_call").map((e) => [e.kind, e.target, e.status]);
  assertEquals(calls, [
    ["read", "a.txt", "ok"],
    ["edit", "a.txt", "ok"],
    ["write", "notes/new.txt", "ok"],
  ]);
});

Deno.test("claude in read mode refuses an edit, a shell write and a web fetch", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const run = await driveBackend(
    claudeBackend,
    spec(server.env, repo.dir, "read-refusals", "read"),
  );
  assertEquals(run.outcome.class, "ok", run.stdout.join("\n"));
  assertEquals(await git(repo.dir, "status", "--porcelain"), "");
  const calls = ofType(run.events, "worker.tool_call").map((e) => [e.tool, e.status]);
  // claude answers the call to a removed tool before it runs the Read of the same turn.
  assertEquals(calls, [
    ["Edit", "denied"],
    ["Read", "ok"],
    ["Bash", "denied"],
    ["WebFetch", "denied"],
    ["Bash", "ok"],
  ]);
  assertEquals(ofType(run.events, "worker.denied").map((e) => e.tool), [
    "Edit",
    "Bash",
    "WebFetch",
  ]);
});

Deno.test("claude in write mode runs the shell but is denied commit and rm -rf", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const run = await driveBackend(
    claudeBackend,
    spec(server.env, repo.dir, "write-denials", "write"),
  );
  assertEquals(run.outcome.class, "ok", run.stdout.join("\n"));
  const calls = ofType(run.events, "worker.tool_call").map((e) => [e.target, e.status]);
  assertEquals(calls, [
    ["echo made > made.txt", "ok"],
    ["git commit -am sneaky", "denied"],
    ["rm -rf sub", "denied"],
  ]);
  assertEquals(await git(repo.dir, "rev-list", "--count", "HEAD"), "1\n");
  assertEquals(await Deno.readTextFile(join(repo.dir, "sub", "keep.txt")), "keep\n");
  assertEquals(await Deno.readTextFile(join(repo.dir, "made.txt")), "made\n");
});

Deno.test("claude continues a session with --resume and keeps the session id", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const first = await driveBackend(
    claudeBackend,
    spec(server.env, repo.dir, "read-answer", "read"),
  );
  const sessionId = ofType(first.events, "worker.session")[0]?.sessionId;
  assert(sessionId !== undefined);
  const second = await driveBackend(
    claudeBackend,
    spec(server.env, repo.dir, "read-answer", "read", { sessionId, prompt: "And again." }),
  );
  assertEquals(second.outcome.class, "ok");
  assertEquals(ofType(second.events, "worker.session")[0]?.sessionId, sessionId);
  const log = await server.requests();
  assertEquals(log.at(-1)?.user, "And again.");
});

const FAILURES: [string, string, Record<string, unknown>][] = [
  ["no-such-scenario", "model_not_found", {}],
  ["rate-limited", "rate_limited", { retryAfterMs: true }],
  ["overloaded", "rate_limited", {}],
  ["out-of-credit", "quota", {}],
  ["bad-key", "auth", {}],
];

for (const [model, expected, extra] of FAILURES) {
  Deno.test(`claude against scenario "${model}" ends as ${expected} quickly`, async () => {
    await using server = await startModelServer({ scenarios: SCENARIOS });
    await using repo = await tempRepo();
    const started = performance.now();
    const run = await driveBackend(claudeBackend, spec(server.env, repo.dir, model, "read"), {
      timeoutMs: 30_000,
    });
    assertEquals(run.outcome.class, expected, run.stdout.join("\n"));
    assertEquals(run.end.code, 1);
    assertEquals(ofType(run.events, "worker.answer"), []);
    if (extra.retryAfterMs) assert((run.outcome.retryAfterMs ?? 0) >= 2000, run.outcome.message);
    assert(performance.now() - started < 15_000, "took too long");
  });
}

Deno.test("claude stopped while waiting on the model is classified as stopped", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const stop = new AbortController();
  const running = driveBackend(claudeBackend, spec(server.env, repo.dir, "hangs", "read"), {
    stop: stop.signal,
    timeoutMs: 30_000,
  });
  await waitFor(async () => (await server.requests()).some((r) => r.played === "hang"), {
    timeoutMs: 15_000,
    what: "the hanging request",
  });
  stop.abort();
  const run = await running;
  assertEquals(run.outcome.class, "stopped");
  assertEquals(ofType(run.events, "worker.answer"), []);
});
