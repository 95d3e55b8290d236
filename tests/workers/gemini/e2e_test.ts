/**
 * The real gemini 0.61.0 through the engine's process shell (`driveBackend`) against the
 * scripted model server: launch description, permission profiles, parser and classifier
 * together. Each run costs two to three seconds (general.maxAttempts 1 keeps errors fast).
 */
import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { join } from "node:path";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { realRunner } from "../../../src/sys/real.ts";
import { geminiBackend } from "../../../src/workers/gemini/mod.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import { driveBackend } from "../../support/backend_harness.ts";
import { type RunningModelServer, startModelServer } from "../../support/model_server/fixture.ts";
import { git, tempDir, tempRepo, waitFor } from "../../support/temp.ts";

const TIMEOUT_MS = 45_000;

const SCENARIOS = {
  "read-answer": {
    turns: [
      { say: "Looking for the greeting.", grep: "hello" },
      { read: "a.txt" },
      { answer: "a.txt:1 says hello." },
    ],
  },
  "edit-in-place": {
    turns: [
      { edit: { path: "src/app.ts", old: "a+b", new: "a + b" } },
      { answer: "Spaced the sum in src/app.ts:1." },
    ],
    followup: [{ answer: "Nothing else to change." }],
  },
  "read-misbehaves": {
    turns: [
      { edit: { path: "a.txt", old: "hello", new: "bye" } },
      { shell: "echo pwned > b.txt" },
      { web: "http://127.0.0.1:9/page" },
      { answer: "I could not change anything." },
    ],
  },
  "write-guarded": {
    turns: [
      { shell: "git commit --allow-empty -m sneaky" },
      { shell: "echo first && git reset --hard HEAD" },
      { shell: "echo made > made.txt" },
      { answer: "Made made.txt." },
    ],
  },
  "limit-minute": { turns: [{ error: { status: 429, kind: "rate_limit", retry_after_s: 3 } }] },
  "limit-day": { turns: [{ error: { status: 429, kind: "quota_daily" } }] },
  "bad-key": { turns: [{ error: { status: 400, kind: "auth" } }] },
  "never-answers": { turns: [{ hang: true }] },
};

async function withServer(fn: (server: RunningModelServer) => Promise<void>): Promise<void> {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await fn(server);
}

async function drive(server: RunningModelServer, fields: Partial<RunSpec> & { cwd: string }) {
  await using priv = await tempDir("pitroom-gemini-private-");
  const spec: RunSpec = {
    mode: "read",
    prompt: "Do the scripted task.",
    privateDir: priv.path,
    web: false,
    baseEnv: server.env,
    ...fields,
  };
  return await driveBackend(geminiBackend, spec, { timeoutMs: TIMEOUT_MS });
}

function ofType<T extends WorkerEvent["type"]>(events: WorkerEvent[], type: T) {
  return events.filter((e): e is Extract<WorkerEvent, { type: T }> => e.type === type);
}

Deno.test("gemini answers a read task with its tool calls, session, tokens and answer", async () => {
  await withServer(async (server) => {
    await using repo = await tempRepo({ "a.txt": "hello\n" });
    const run = await drive(server, { cwd: repo.path, model: "read-answer" });
    assertEquals(run.outcome, { class: "ok", message: "a.txt:1 says hello." });
    assertEquals(ofType(run.events, "worker.answer").map((e) => e.text), ["a.txt:1 says hello."]);
    assertEquals(ofType(run.events, "worker.session").length, 1);
    assertEquals(
      ofType(run.events, "worker.tool_call").map((e) => [e.kind, e.target, e.status]),
      [["search", "hello", "ok"], ["read", join(repo.path, "a.txt"), "ok"]],
    );
    ok((ofType(run.events, "worker.tokens")[0]?.input ?? 0) > 0);
    assertEquals(ofType(run.events, "worker.unknown"), []);
  });
});

Deno.test("gemini edits in place in write mode with exactly the scripted change, and resumes its session", async () => {
  await withServer(async (server) => {
    await using repo = await tempRepo({ "src/app.ts": "export const sum = a+b;\n" });
    const run = await drive(server, { cwd: repo.path, mode: "write", model: "edit-in-place" });
    assertEquals(run.outcome.class, "ok");
    assertEquals(
      await Deno.readTextFile(join(repo.path, "src/app.ts")),
      "export const sum = a + b;\n",
    );
    assertEquals(await git(repo.path, "status", "--porcelain"), " M src/app.ts\n");
    assertEquals(
      ofType(run.events, "worker.tool_call").map((e) => [e.tool, e.kind, e.status]),
      [["replace", "edit", "ok"]],
    );

    const sessionId = ofType(run.events, "worker.session")[0]?.sessionId;
    ok(sessionId !== undefined);
    const again = await drive(server, {
      cwd: repo.path,
      mode: "write",
      model: "edit-in-place",
      sessionId,
      prompt: "Anything else?",
    });
    assertEquals(again.outcome, { class: "ok", message: "Nothing else to change." });
    assertEquals(ofType(again.events, "worker.session")[0]?.sessionId, sessionId);
    const last = (await server.requests()).at(-1);
    assertEquals([last?.followup, last?.user], [true, "Anything else?"]);
  });
});

Deno.test("gemini in read mode refuses an edit, a writing shell and a web fetch, and nothing changes", async () => {
  await withServer(async (server) => {
    await using repo = await tempRepo({ "a.txt": "hello\n" });
    const head = await git(repo.path, "rev-parse", "HEAD");
    const run = await drive(server, { cwd: repo.path, model: "read-misbehaves" });
    assertEquals(
      ofType(run.events, "worker.tool_call").map((e) => [e.tool, e.kind, e.status]),
      [
        ["replace", "edit", "denied"],
        ["run_shell_command", "shell", "denied"],
        ["web_fetch", "web", "denied"],
      ],
    );
    assertEquals(ofType(run.events, "worker.denied").length, 3);
    assertEquals(await git(repo.path, "status", "--porcelain", "--untracked-files=all"), "");
    assertEquals(await Deno.readTextFile(join(repo.path, "a.txt")), "hello\n");
    assertEquals(await git(repo.path, "rev-parse", "HEAD"), head);
    const offered = (await server.requests())[0]?.tools ?? [];
    for (
      const tool of ["replace", "write_file", "run_shell_command", "web_fetch", "google_web_search"]
    ) {
      assertEquals(offered.includes(tool), false, `${tool} offered in read mode`);
    }
  });
});

Deno.test("gemini in write mode runs a harmless command but is denied git commit", async () => {
  await withServer(async (server) => {
    await using repo = await tempRepo({ "a.txt": "hello\n" });
    const head = await git(repo.path, "rev-parse", "HEAD");
    const run = await drive(server, { cwd: repo.path, mode: "write", model: "write-guarded" });
    assertEquals(run.outcome.class, "ok");
    assertEquals(
      ofType(run.events, "worker.tool_call").map((e) => [e.target, e.status]),
      [
        ["git commit --allow-empty -m sneaky", "denied"],
        ["echo first && git reset --hard HEAD", "denied"],
        ["echo made > made.txt", "ok"],
      ],
    );
    assertEquals(await git(repo.path, "rev-parse", "HEAD"), head);
    assertEquals(await Deno.readTextFile(join(repo.path, "made.txt")), "made\n");
  });
});

Deno.test("gemini failure classes: 404, per-minute quota, per-day quota and a bad key", async () => {
  await withServer(async (server) => {
    await using repo = await tempRepo({ "a.txt": "hello\n" });
    const cases = [
      { model: "no-such-model", want: { class: "model_not_found" } },
      { model: "limit-minute", want: { class: "quota", retryAfterMs: 3000 } },
      { model: "limit-day", want: { class: "quota", daily: true } },
      { model: "bad-key", want: { class: "auth" } },
    ];
    for (const { model, want } of cases) {
      const started = Date.now();
      const run = await drive(server, { cwd: repo.path, model });
      const got = Object.fromEntries(
        Object.keys(want).map((key) => [key, run.outcome[key as keyof typeof run.outcome]]),
      );
      assertEquals(got, want, `${model}: ${JSON.stringify(run.outcome)}`);
      ok(Date.now() - started < 20_000, `${model} took ${Date.now() - started} ms`);
      assertEquals(ofType(run.events, "worker.answer"), []);
    }
  });
});

Deno.test("gemini stopped mid-call exits 0 without a result and is classified stopped", async () => {
  await withServer(async (server) => {
    await using repo = await tempRepo({ "a.txt": "hello\n" });
    await using priv = await tempDir("pitroom-gemini-private-");
    const stop = new AbortController();
    const running = driveBackend(geminiBackend, {
      mode: "read",
      prompt: "Do the scripted task.",
      cwd: repo.path,
      privateDir: priv.path,
      model: "never-answers",
      web: false,
      baseEnv: server.env,
    }, { timeoutMs: TIMEOUT_MS, stop: stop.signal });
    await waitFor(async () => (await server.requests()).some((r) => r.played === "hang"), {
      timeoutMs: 30_000,
      what: "gemini's hanging model call",
    });
    stop.abort();
    const run = await running;
    assertEquals(run.outcome.class, "stopped");
    assertEquals(run.end.code, 0); // gemini's own SIGTERM exit: 0, no result line
    assertEquals(run.stdout.some((line) => line.includes('"type":"result"')), false);
    assertEquals(ofType(run.events, "worker.session").length, 1);
  });
});

Deno.test("detect() finds the installed gemini and reads its version", async () => {
  await withServer(async (server) => {
    const installed = await geminiBackend.detect(realRunner, server.env);
    assertEquals(installed?.version, "0.61.0");
    ok(installed?.binary.endsWith("/gemini"));
    assertEquals(await geminiBackend.detect(realRunner, { PATH: "/nonexistent" }), null);
  });
});

Deno.test("a repo's own .gemini settings and policies cannot give tools back in read mode", async () => {
  await withServer(async (server) => {
    await using repo = await tempRepo({
      "a.txt": "hello\n",
      ".gemini/settings.json": JSON.stringify({
        tools: { allowed: ["run_shell_command", "write_file", "replace"] },
      }),
      ".gemini/policies/open.toml": '[[rule]]\ntoolName = ["run_shell_command", "write_file", ' +
        '"replace", "web_fetch"]\ndecision = "allow"\npriority = 999\n',
    });
    const run = await drive(server, { cwd: repo.path, model: "read-misbehaves" });
    assertEquals(
      ofType(run.events, "worker.tool_call").map((e) => e.status),
      ["denied", "denied", "denied"],
    );
    assertEquals(await git(repo.path, "status", "--porcelain", "--untracked-files=all"), "");
    const offered = (await server.requests())[0]?.tools ?? [];
    assertEquals(offered.filter((tool) => /replace|write_file|run_shell|web_/.test(tool)), []);
  });
});

Deno.test("gemini in read mode with web is allowed its web fetch but still not edits", async () => {
  await withServer(async (server) => {
    await using repo = await tempRepo({ "a.txt": "hello\n" });
    const run = await drive(server, { cwd: repo.path, model: "read-misbehaves", web: true });
    const calls = ofType(run.events, "worker.tool_call");
    assertEquals(calls.map((e) => [e.kind, e.status]), [
      ["edit", "denied"],
      ["shell", "denied"],
      // Allowed by the policy; gemini's fetch itself refuses loopback hosts, so it errors.
      ["web", "error"],
    ]);
    ok(calls[2]?.error?.includes("Blocked Host"), calls[2]?.error);
    assertEquals(await git(repo.path, "status", "--porcelain", "--untracked-files=all"), "");
    const offered = (await server.requests())[0]?.tools ?? [];
    assertEquals(offered.filter((tool) => /web/.test(tool)), ["web_fetch", "google_web_search"]);
  });
});
