/**
 * The real opencode CLI through the process shell against the scripted model server: a read
 * answer (its tool calls, tokens and session), an in-place edit with the write profile blocking a
 * commit, and a missing model (two ways). What the whole program drives with this CLI
 * (tests/e2e/workers_opencode_test.ts: the read profile refusing an edit, a shell write and a web
 * fetch; a follow-up in the same session; a rate limit, a quota and a bad key) and what recorded
 * streams of it show (parse_test.ts, classify_test.ts) is not driven a second time here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { opencodeBackend } from "../../../src/workers/opencode/mod.ts";
import { realRunner } from "../../../src/sys/real.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import { driveBackend } from "../../support/backend_harness.ts";
import { startModelServer } from "../../support/model_server/fixture.ts";

const SCENARIOS = {
  "read-answer": {
    turns: [
      { say: "Looking.", calls: [{ read: "notes.txt" }, { grep: "hello" }] },
      { shell: "git log --oneline" },
      { answer: "notes.txt says hello world.", usage: { input: 100, output: 20, cached: 40 } },
    ],
  },
  "edit": {
    turns: [
      { shell: "git commit -am sneaky" },
      { edit: { path: "src/app.ts", old: "a+b", new: "a + b" } },
      { answer: "Spaced the sum in src/app.ts:2." },
    ],
  },
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
    cwd,
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

async function tempRepo(): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "pitroom-opencode-repo-" });
  await Deno.mkdir(join(dir, "src"));
  await Deno.writeTextFile(join(dir, "notes.txt"), "hello world\n");
  await Deno.writeTextFile(
    join(dir, "src/app.ts"),
    "export function add(a: number, b: number) {\n  return a+b;\n}\n",
  );
  await git(dir, "init", "-q");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "init");
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

function spec(
  env: Record<string, string>,
  cwd: string,
  model: string,
  mode: RunSpec["mode"],
): RunSpec {
  return {
    mode,
    prompt: "Do the task.",
    cwd,
    privateDir: join(cwd, ".."),
    model: `fake/${model}`,
    web: false,
    // The test process's own PWD must not leak in as opencode's project directory.
    baseEnv: { ...env, PWD: Deno.cwd() },
  };
}

function ofType<K extends WorkerEvent["type"]>(events: WorkerEvent[], type: K) {
  return events.filter((e): e is Extract<WorkerEvent, { type: K }> => e.type === type);
}

const TIMEOUT = { timeoutMs: 120_000 };

Deno.test("opencode answers a read task with its tool calls, tokens and session", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const run = await driveBackend(
    opencodeBackend,
    spec(server.env, repo.dir, "read-answer", "read"),
    TIMEOUT,
  );
  assert.equal(run.outcome.class, "ok", run.stderr.join("\n"));
  assert.deepEqual(ofType(run.events, "worker.answer").map((e) => e.text), [
    "notes.txt says hello world.",
  ]);
  assert.deepEqual(
    // The two calls of one turn run in parallel and finish in either order.
    ofType(run.events, "worker.tool_call").map((e) => [e.kind, e.target, e.status]).sort(),
    [
      ["read", join(repo.dir, "notes.txt"), "ok"],
      ["search", "hello", "ok"],
      ["shell", "git log --oneline", "ok"],
    ],
  );
  assert.equal(ofType(run.events, "worker.session").length, 1);
  const tokens = ofType(run.events, "worker.tokens");
  assert.equal(tokens.length, 3, "one per model call");
  assert.deepEqual(
    { input: tokens[2]?.input, output: tokens[2]?.output, cached: tokens[2]?.cached },
    { input: 100, output: 20, cached: 40 },
  );
  assert.equal(await git(repo.dir, "status", "--porcelain"), "");
});

Deno.test("opencode in write mode makes exactly the scripted edit and cannot commit", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const head = await git(repo.dir, "rev-parse", "HEAD");
  const run = await driveBackend(
    opencodeBackend,
    spec(server.env, repo.dir, "edit", "write"),
    TIMEOUT,
  );
  assert.equal(run.outcome.class, "ok", run.stderr.join("\n"));
  assert.equal(await git(repo.dir, "status", "--porcelain"), " M src/app.ts\n");
  assert.equal(
    await Deno.readTextFile(join(repo.dir, "src/app.ts")),
    "export function add(a: number, b: number) {\n  return a + b;\n}\n",
  );
  assert.equal(await git(repo.dir, "rev-parse", "HEAD"), head);
  assert.deepEqual(
    ofType(run.events, "worker.tool_call").map((e) => [e.tool, e.status]),
    [["bash", "denied"], ["edit", "ok"]],
  );
  assert.deepEqual(ofType(run.events, "worker.denied").map((e) => e.tool), ["bash"]);
  assert.equal(ofType(run.events, "worker.answer")[0]?.text, "Spaced the sum in src/app.ts:2.");
});

Deno.test("opencode is detected and lists the configured models", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  const installed = await opencodeBackend.detect(realRunner, server.env);
  assert.equal(installed?.version, "1.18.33");
  const ids = (await opencodeBackend.models(realRunner, server.env)).map((m) => m.id);
  assert.ok(ids.includes("fake/read-answer"), ids.join(", "));
  assert.ok(ids.includes("fake/missing"));
});

Deno.test("opencode classifies a listed model the server does not know as model_not_found", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const run = await driveBackend(
    opencodeBackend,
    spec(server.env, repo.dir, "missing", "read"),
    TIMEOUT,
  );
  assert.equal(run.outcome.class, "model_not_found", run.outcome.message);
  assert.equal(run.end.code, 1);
  const requests = await server.requests();
  assert.equal(requests.filter((r) => r.status === 404).length, 1, "not retried");
});

Deno.test("opencode classifies a model missing from its config as model_not_found", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const run = await driveBackend(
    opencodeBackend,
    spec(server.env, repo.dir, "not-configured", "read"),
    TIMEOUT,
  );
  assert.equal(run.outcome.class, "model_not_found", run.outcome.message);
  assert.match(run.outcome.message, /fake\/not-configured/);
});
