/**
 * The real codex CLI through the process shell against the scripted model server: answers,
 * in-place edits, read-mode refusals and each failure class.
 */
import assert from "node:assert/strict";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  assert.deepStrictEqual(actual, expected, message);
import { join } from "node:path";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { codexBackend } from "../../../src/workers/codex/mod.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import { driveBackend } from "../../support/backend_harness.ts";
import { startModelServer } from "../../support/model_server/fixture.ts";

const SCENARIOS = {
  "read-answer": {
    turns: [
      { say: "Looking.", calls: [{ read: "notes.txt" }, { grep: "hello" }] },
      { list: "." },
      { answer: "notes.txt says hello world.", usage: { input: 100, output: 20, cached: 40 } },
    ],
  },
  "edit": {
    turns: [
      { edit: { path: "src/app.ts", old: "a+b", new: "a + b" } },
      { answer: "Spaced the sum in src/app.ts:2." },
    ],
  },
  "read-trespass": {
    turns: [
      { shell: "echo pwned > pwned.txt" },
      { web: "http://127.0.0.1:9/page" },
      { edit: { path: "notes.txt", old: "world", new: "there" } },
      { answer: "Tried." },
    ],
  },
  "rate": { turns: [{ error: { status: 429, kind: "rate_limit", retry_after_s: 2 } }] },
  "quota": { turns: [{ error: { status: 429, kind: "quota" } }] },
  "auth": { turns: [{ error: { status: 401, kind: "auth" } }] },
};

function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args: ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

async function tempRepo(): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "pitroom-codex-repo-" });
  await Deno.mkdir(join(dir, "src"));
  await Deno.writeTextFile(join(dir, "notes.txt"), "hello world\n");
  await Deno.writeTextFile(
    join(dir, "src/app.ts"),
    "export function add(a: number, b: number) {\n  return a+b;\n}\n",
  );
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "init");
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

function spec(
  env: Record<string, string>,
  cwd: string,
  scenario: string,
  mode: RunSpec["mode"],
): RunSpec {
  return {
    mode,
    prompt: `Do the task. [[scenario:${scenario}]]`,
    cwd,
    privateDir: join(cwd, ".."),
    model: `fake/${scenario}`,
    web: false,
    baseEnv: env,
  };
}

function ofType<K extends WorkerEvent["type"]>(events: WorkerEvent[], type: K) {
  return events.filter((e): e is Extract<WorkerEvent, { type: K }> => e.type === type);
}

Deno.test("codex answers a read task with its tool calls, tokens and session", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const run = await driveBackend(codexBackend, spec(server.env, repo.dir, "read-answer", "read"));
  assertEquals(run.outcome.class, "ok", run.stderr.join("\n"));
  assertEquals(ofType(run.events, "worker.answer").map((e) => e.text), [
    "notes.txt says hello world.",
  ]);
  assertEquals(
    ofType(run.events, "worker.tool_call").map((e) => [e.kind, e.target, e.status]).sort(),
    [
      ["list", "ls -la -- .", "ok"],
      ["read", "cat -- notes.txt", "ok"],
      ["search", "grep -rn -e hello -- .", "ok"],
    ],
  );
  assertEquals(ofType(run.events, "worker.session").length, 1);
  const tokens = ofType(run.events, "worker.tokens");
  assertEquals(tokens.length, 1);
  assert((tokens[0]?.input ?? 0) > 100, "input sums the three calls");
  assertEquals(git(repo.dir, "status", "--porcelain"), "");
});

Deno.test("codex in write mode makes exactly the scripted edit", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const run = await driveBackend(codexBackend, spec(server.env, repo.dir, "edit", "write"));
  assertEquals(run.outcome.class, "ok", run.stderr.join("\n"));
  assertEquals(git(repo.dir, "status", "--porcelain"), " M src/app.ts\n");
  assertEquals(
    await Deno.readTextFile(join(repo.dir, "src/app.ts")),
    "export function add(a: number, b: number) {\n  return a + b;\n}\n",
  );
  const edits = ofType(run.events, "worker.tool_call");
  assertEquals(edits.map((e) => [e.tool, e.kind, e.status]), [["apply_patch", "edit", "ok"]]);
  assert(edits[0]?.target.endsWith("src/app.ts"));
  assertEquals(ofType(run.events, "worker.answer")[0]?.text, "Spaced the sum in src/app.ts:2.");
});

Deno.test("codex in read mode refuses a shell write, a web fetch and an edit", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo();
  const run = await driveBackend(
    codexBackend,
    spec(server.env, repo.dir, "read-trespass", "read"),
  );
  assertEquals(run.outcome.class, "ok", run.stderr.join("\n"));
  assertEquals(git(repo.dir, "status", "--porcelain"), "");
  const calls = ofType(run.events, "worker.tool_call");
  // codex 0.169.0 sometimes emits no item at all for a command that fails at once (seen for
  // about one run in three); when it does, the sandbox's refusal must show as a denial.
  const shell = calls.find((e) => e.kind === "shell");
  if (shell !== undefined) {
    assertEquals(shell.status, "denied");
    assert(shell.error?.includes("Read-only file system"));
  }
  const web = calls.find((e) => e.kind === "web");
  assertEquals(web?.status, "error", "the sandbox has no network: curl cannot connect");
  const edit = calls.find((e) => e.kind === "edit");
  assertEquals(edit?.status, "denied");
  const denied = ofType(run.events, "worker.denied").map((e) => e.tool);
  assert(denied.includes("apply_patch"));
  assertEquals(denied.length, shell === undefined ? 1 : 2);
});

for (
  const [scenario, expected] of [
    ["missing-model", "model_not_found"],
    ["rate", "rate_limited"],
    ["quota", "quota"],
    ["auth", "auth"],
  ] as const
) {
  Deno.test(`codex classifies a ${scenario} failure as ${expected}`, async () => {
    await using server = await startModelServer({ scenarios: SCENARIOS });
    await using repo = await tempRepo();
    const started = performance.now();
    const run = await driveBackend(codexBackend, spec(server.env, repo.dir, scenario, "read"), {
      timeoutMs: 20_000,
    });
    assertEquals(run.outcome.class, expected, run.outcome.message);
    assertEquals(run.end.code, 1);
    assert(performance.now() - started < 10_000, "fails fast with retries off");
  });
}
