/**
 * The generic ACP worker driven end to end through the real program: two real agents in their
 * ACP mode, configured as `"workers": {...: {"acp": [...]}}`, against the scripted model server,
 * in the sandbox. Gemini CLI 0.61.0 (`gemini --acp`) asks permission for edits and commands, which
 * Pitroom answers by the run's mode, and reports its tokens in `_meta.quota`; OpenCode 1.18.33
 * (`opencode acp`) asks nothing (its own permissions allow all: the sandbox confines it), resumes
 * sessions and reports `usage`; Qwen Code 0.24.4 (`qwen --acp`) answers a read run (one case: a
 * qwen start costs seconds of CPU). The scenario is named by the `[[scenario:NAME]]` marker in the
 * task.
 */
import assert from "node:assert/strict";
import type { PitroomEvent } from "../../src/events/mod.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { git, waitFor } from "../support/temp.ts";
import { liveInGroup, type World, world } from "./_world.ts";

const CONFIG = {
  workers: {
    gem: { acp: ["gemini", "--acp"] },
    oc: { acp: ["opencode", "acp"] },
    qw: { acp: ["qwen", "--acp"] },
  },
};

async function runJson(
  w: World,
  args: string[],
): Promise<{ code: number; record: RunRecord; stderr: string }> {
  const r = await w.run(["run", "-t", "120s", "--json", ...args]);
  try {
    return { code: r.code, record: JSON.parse(r.stdout), stderr: r.stderr };
  } catch {
    throw new Error(`run --json (exit ${r.code}): ${r.stdout.slice(0, 2000)} ${r.stderr}`);
  }
}

async function events(w: World, id: string): Promise<PitroomEvent[]> {
  const r = await w.run(["show", id, "--events"]);
  return r.stdout.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

function calls(list: PitroomEvent[]): string[] {
  return list.flatMap((e) => e.type === "worker.tool_call" ? [`${e.kind} ${e.status}`] : []);
}

Deno.test("gemini --acp as a worker: a write run's edit and command allowed, its tokens reported, then a follow-up", async () => {
  await using w = await world({
    edit: {
      turns: [
        { read: "src/app.ts" },
        { edit: { path: "src/app.ts", old: "41", new: "42" } },
        { shell: "echo done > shell.txt" },
        { answer: "Set the answer to 42 in src/app.ts:1." },
      ],
      followup: [{ answer: "It was 41 before." }],
    },
  }, { config: CONFIG });
  const first = await runJson(w, ["-w", "-W", "gem", "[[scenario:edit]] Set the answer to 42"]);
  assert.equal(first.code, 0, first.stderr + JSON.stringify(first.record));
  const record = first.record;
  assert.equal(record.outcome, "ok");
  assert.equal(record.attempts[0]?.sandbox, "bwrap");
  assert.equal(record.answer?.trim(), "Set the answer to 42 in src/app.ts:1.");
  assert.deepEqual(calls(await events(w, record.id)), ["read ok", "edit ok", "shell ok"]);
  assert.deepEqual(record.changes?.files.map((f) => f.path).sort(), ["shell.txt", "src/app.ts"]);
  assert.equal(await w.read("src/app.ts"), "export const answer = 42;\n");
  assert.ok(record.progress.tokens.input > 0, "gemini reports its tokens");
  assert.equal(record.progress.tokensUnreported, undefined);
  const sessionId = record.attempts[0]?.sessionId;
  assert.ok(sessionId);
  // A follow-up loads the session (gemini offers session/load, not resume). Gemini CLI 0.61.0
  // often answers that load "No previous sessions found for this project" for the session it
  // saved (it saves a second, empty session beside each ACP session): then the run must fail
  // saying so, never answer from a new session.
  const next = await runJson(w, ["--continue", record.id, "[[scenario:edit]] What was it before?"]);
  if (next.record.outcome === "ok") {
    assert.equal(next.record.answer?.trim(), "It was 41 before.");
    assert.equal(next.record.attempts[0]?.sessionId, sessionId);
  } else {
    assert.equal(next.code, 1, next.stderr);
    assert.match(
      next.record.message ?? "",
      new RegExp(`gem could not continue session ${sessionId}: .*No previous sessions found`),
    );
  }
});

Deno.test("gemini --acp in a read run: the edit and the command it asks for are refused, the tree untouched", async () => {
  await using w = await world({
    sneaky: {
      turns: [
        { edit: { path: "src/app.ts", old: "41", new: "7" } },
        { shell: "touch made.txt" },
        { answer: "The answer is 41 (src/app.ts:1)." },
      ],
    },
  }, { config: CONFIG });
  const { code, record, stderr } = await runJson(w, [
    "-W",
    "gem",
    "[[scenario:sneaky]] What is it?",
  ]);
  assert.equal(code, 0, stderr);
  assert.equal(record.outcome, "ok");
  const list = await events(w, record.id);
  // Gemini 0.61.0 offers no shell in read... it asks for both: each answered "reject".
  assert.ok(
    calls(list).every((c) => c.endsWith("denied") || c.endsWith("error")),
    calls(list).join(),
  );
  assert.ok(list.some((e) => e.type === "worker.denied"), "a refusal is reported");
  assert.equal((await git(w.repo, "status", "--porcelain")).trim(), "");
});

Deno.test("qwen --acp as a worker: a read run's answer, in the sandbox", async () => {
  await using w = await world({
    look: {
      turns: [{ read: "src/app.ts" }, { answer: "The answer is 41 (src/app.ts:1)." }],
    },
  }, { config: CONFIG });
  const { code, record, stderr } = await runJson(w, ["-W", "qw", "[[scenario:look]] What is it?"]);
  assert.equal(code, 0, stderr + JSON.stringify(record));
  assert.equal(record.outcome, "ok");
  assert.equal(record.attempts[0]?.sandbox, "bwrap");
  assert.equal(record.answer?.trim(), "The answer is 41 (src/app.ts:1).");
  assert.deepEqual(calls(await events(w, record.id)), ["read ok"]);
  assert.equal((await git(w.repo, "status", "--porcelain")).trim(), "");
});

Deno.test("opencode acp as a worker: a write run in the sandbox, usage reported; a follow-up resumes its session", async () => {
  await using w = await world({
    edit: {
      turns: [
        { edit: { path: "src/app.ts", old: "41", new: "42" } },
        { answer: "Set it to 42 (src/app.ts:1)." },
      ],
      followup: [{ answer: "Before: 41." }],
    },
  }, { config: CONFIG });
  const first = await runJson(w, ["-w", "-W", "oc", "[[scenario:edit]] Set the answer to 42"]);
  assert.equal(first.code, 0, first.stderr + JSON.stringify(first.record));
  const record = first.record;
  assert.equal(record.attempts[0]?.sandbox, "bwrap");
  assert.equal(record.answer?.trim(), "Set it to 42 (src/app.ts:1).");
  assert.deepEqual(calls(await events(w, record.id)), ["edit ok"]);
  assert.deepEqual(record.changes?.files.map((f) => f.path), ["src/app.ts"]);
  assert.ok(record.progress.tokens.input > 0, "opencode reports usage");
  const next = await runJson(w, ["--continue", record.id, "[[scenario:edit]] And before?"]);
  assert.equal(next.code, 0, next.stderr);
  assert.equal(next.record.answer?.trim(), "Before: 41.");
  assert.equal(next.record.attempts[0]?.sessionId, record.attempts[0]?.sessionId);
});

Deno.test("an ACP worker in a chain: a model gemini's server does not have falls back to opencode", async () => {
  // No marker: the model names the scenario (opencode's default model is fake/scripted).
  await using w = await world({ scripted: { turns: [{ answer: "From the fallback." }] } }, {
    config: CONFIG,
  });
  const { code, record, stderr } = await runJson(w, ["-W", "gem:nope,oc", "Say it"]);
  assert.equal(code, 0, stderr + JSON.stringify(record.attempts));
  assert.deepEqual(record.attempts.map((a) => [a.worker, a.outcome]), [
    ["gem", "model_not_found"],
    ["oc", "ok"],
  ]);
  assert.equal(record.answer?.trim(), "From the fallback.");
});

Deno.test("stop on a gemini --acp worker cancels its turn and ends its processes", async () => {
  await using w = await world({ hang: { turns: [{ hang: true }] } }, { config: CONFIG });
  const id = (await w.run(["run", "--bg", "-W", "gem", "[[scenario:hang]] Wait"])).stdout.trim();
  await waitFor(async () => (await w.record(id)).progress.at !== undefined, {
    timeoutMs: 90_000,
    what: "the agent's session",
  });
  const stopped = await w.run(["stop", id]);
  assert.equal(stopped.code, 0, stopped.stderr);
  const record = await w.record(id);
  assert.equal(record.outcome, "stopped");
  await waitFor(async () => (await liveInGroup(record.attempts[0]!.workerPid!)).length === 0, {
    timeoutMs: 10_000,
    what: "the agent's process group to end",
  });
});
