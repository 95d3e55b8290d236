/**
 * The generic ACP worker through the engine with a real process: a scripted fake agent
 * (tests/support/fake_acp_agent.ts) configured as `"workers": {"fake": {"acp": [...]}}` speaks
 * the protocol, or misbehaves, over its stdin and stdout. The real agents against the scripted
 * model server are tests/e2e/workers_acp_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunRecord } from "../../src/store/record.ts";
import { acpWorld } from "../support/acp_world.ts";

const say = (text: string) => ({
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
});

function call(id: string, kind: string, extra: Record<string, unknown> = {}) {
  return { toolCallId: id, kind, title: `${kind} ${id}`, ...extra };
}

function done(id: string, status = "completed") {
  return { update: { sessionUpdate: "tool_call_update", toolCallId: id, status } };
}

function answers(log: Record<string, unknown>[]): Record<string, unknown> {
  return Object.fromEntries(
    log.filter((l) => "permission" in l).map((l) => [l.permission, l.answer]),
  );
}

Deno.test("an ACP worker's read run: its words are the answer, its calls the steps, its writes refused", async () => {
  await using w = await acpWorld({
    steps: [
      say("Looking."),
      {
        update: {
          sessionUpdate: "tool_call",
          ...call("r1", "read", { locations: [{ path: "src/app.ts" }] }),
        },
      },
      { permission: call("r1", "read", { locations: [{ path: "src/app.ts" }] }) },
      done("r1"),
      { update: { sessionUpdate: "tool_call", ...call("e1", "edit") } },
      {
        permission: call("e1", "edit", {
          content: [{ type: "diff", path: "src/app.ts", oldText: "41", newText: "42" }],
        }),
      },
      done("e1", "failed"),
      { ask: "fs/read_text_file" },
      { ask: "terminal/create" },
      say("The answer is "),
      say("41 (src/app.ts:1)."),
    ],
    result: {
      stopReason: "end_turn",
      usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    },
  });
  const record: RunRecord = await w.engine.run({ task: "What is the answer?" });
  assert.equal(record.outcome, "ok", record.message);
  assert.equal(record.answer, "The answer is 41 (src/app.ts:1).");
  assert.equal(record.progress.tools, 2);
  assert.equal(record.progress.denied, 1);
  assert.deepEqual(record.progress.tokens, { input: 120, output: 30, cached: 0, reasoning: 0 });
  assert.equal(record.progress.tokensUnreported, undefined);
  const log = await w.log();
  // A read is allowed once (never "always"); an edit in a read run is refused once.
  assert.deepEqual(answers(log), {
    r1: { outcome: { outcome: "selected", optionId: "yes" } },
    e1: { outcome: { outcome: "selected", optionId: "no" } },
  });
  // Pitroom offers no file system or terminal: the agent is told so at once.
  const asked = log.filter((l) => "asked" in l);
  assert.equal(asked.length, 2);
  for (const a of asked) assert.equal((a.answer as { code: number }).code, -32601);
  const init = log.find((l) => l.method === "initialize") as { params: Record<string, unknown> };
  assert.deepEqual(init.params.clientCapabilities, {
    fs: { readTextFile: false, writeTextFile: false },
    terminal: false,
  });
  assert.equal(await Deno.readTextFile(join(w.repo, "src/app.ts")), "export const answer = 41;\n");
});

Deno.test("an ACP worker's write run: edits and commands in the tree allowed; outside, .git and the floor refused", async () => {
  const outside = await Deno.makeTempDir();
  await using w = await acpWorld({
    steps: [
      {
        update: {
          sessionUpdate: "tool_call",
          ...call("in", "edit", { locations: [{ path: "src/app.ts" }] }),
        },
      },
      { permission: call("in", "edit", { locations: [{ path: "src/app.ts" }] }) },
      { write: "src/app.ts", content: "export const answer = 42;\n" },
      done("in"),
      { permission: call("out", "edit", { locations: [{ path: join(outside, "x.ts") }] }) },
      { permission: call("up", "edit", { locations: [{ path: "../x.ts" }] }) },
      { permission: call("git", "edit", { locations: [{ path: ".git/config" }] }) },
      { permission: call("ls", "execute", { rawInput: { command: "ls -la" } }) },
      {
        permission: call("commit", "execute", {
          rawInput: { command: "npm test && git commit -am x" },
        }),
      },
      { permission: call("sudo", "execute", { title: "FOO=1 sudo rm x" }) },
      { permission: call("web", "fetch", { rawInput: { url: "https://example.com" } }) },
      say("Done: src/app.ts:1."),
    ],
  });
  const record = await w.engine.run({ task: "Change it", mode: "write" });
  await Deno.remove(outside, { recursive: true });
  assert.equal(record.outcome, "ok", record.message);
  const yes = { outcome: "selected", optionId: "yes" };
  const no = { outcome: "selected", optionId: "no" };
  assert.deepEqual(answers(await w.log()), {
    in: { outcome: yes },
    out: { outcome: no },
    up: { outcome: no },
    git: { outcome: no },
    ls: { outcome: yes },
    commit: { outcome: no },
    sudo: { outcome: no },
    web: { outcome: no },
  });
  assert.deepEqual(record.changes?.files.map((f) => f.path), ["src/app.ts"]);
  // No usage in the result: the tokens are "not reported", not zero.
  assert.equal(record.progress.tokensUnreported, true);
  assert.equal(record.receipt?.tokensUnreported, true);
});

Deno.test("an ACP permission request without a once option is cancelled, never answered 'always'", async () => {
  await using w = await acpWorld({
    steps: [{
      permission: call("e", "edit", { locations: [{ path: "src/app.ts" }] }),
      options: [{ optionId: "always", name: "Always", kind: "allow_always" }],
    }, say("ok")],
  });
  const record = await w.engine.run({ task: "Change it", mode: "write" });
  assert.equal(record.outcome, "ok", record.message);
  assert.deepEqual(answers(await w.log()), { e: { outcome: { outcome: "cancelled" } } });
});

Deno.test("an ACP follow-up loads the session where the agent offers it, and its replay is not the answer", async () => {
  await using w = await acpWorld({
    initialize: { protocolVersion: 1, agentCapabilities: { loadSession: true } },
    steps: [say("Second answer.")],
  });
  const first = await w.engine.run({ task: "First" });
  assert.equal(first.outcome, "ok", first.message);
  assert.equal(first.attempts[0]?.sessionId, "ses_fake_1");
  const second = await w.engine.run({ task: "Then", continue: first.id });
  assert.equal(second.outcome, "ok", second.message);
  assert.equal(second.answer, "Second answer.");
  const loads = (await w.log()).filter((l) => l.method === "session/load");
  assert.equal(loads.length, 1);
  assert.equal((loads[0]!.params as { sessionId: string }).sessionId, "ses_fake_1");
});

Deno.test("an ACP follow-up prefers session/resume, and fails clearly where the agent can do neither", async () => {
  {
    await using w = await acpWorld({
      initialize: {
        protocolVersion: 1,
        agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
      },
      steps: [say("Again.")],
    });
    const first = await w.engine.run({ task: "First" });
    const second = await w.engine.run({ task: "Then", continue: first.id });
    assert.equal(second.outcome, "ok", second.message);
    const methods = (await w.log()).map((l) => l.method);
    assert.ok(methods.includes("session/resume"));
    assert.ok(!methods.includes("session/load"));
  }
  await using w = await acpWorld({ steps: [say("Once.")] });
  const first = await w.engine.run({ task: "First" });
  const second = await w.engine.run({ task: "Then", continue: first.id });
  assert.equal(second.outcome, "failed");
  assert.match(
    second.message ?? "",
    /fake cannot continue a session: .*neither session\/resume nor session\/load/,
  );
});

Deno.test("-m on an ACP worker sets the session's model, and a model it refuses falls back to the next worker", async () => {
  await using w = await acpWorld({
    session: { models: { availableModels: [], currentModelId: "a" } },
    modelError: "Unknown model: nope",
    steps: [say("never")],
  }, {
    more: {
      session: { configOptions: [{ id: "model", category: "model", type: "select" }] },
      steps: [say("From the other one.")],
    },
  });
  const record = await w.engine.run({ task: "Hi", worker: "fake:nope,more:m2" });
  assert.equal(record.outcome, "ok", record.message);
  assert.equal(record.answer, "From the other one.");
  assert.equal(record.attempts[0]?.outcome, "model_not_found");
  assert.match(
    record.attempts[0]?.message ?? "",
    /fake did not take model "nope": Unknown model: nope/,
  );
  const log = await w.log();
  assert.deepEqual(log.find((l) => l.method === "session/set_model")?.params, {
    sessionId: "ses_fake_1",
    modelId: "nope",
  });
  assert.deepEqual(log.find((l) => l.method === "session/set_config_option")?.params, {
    sessionId: "ses_fake_1",
    configId: "model",
    value: "m2",
  });
});

Deno.test("-m on an ACP agent that offers no model choice fails saying where the model goes", async () => {
  await using w = await acpWorld({ steps: [say("never")] });
  const record = await w.engine.run({ task: "Hi", worker: "fake:some-model" });
  assert.notEqual(record.outcome, "ok");
  assert.match(
    record.message ?? "",
    /offers no choice of model over ACP: name the model in its command/,
  );
});

Deno.test("stop on an ACP worker sends session/cancel and the run ends stopped", async () => {
  await using w = await acpWorld({ steps: [say("Working"), { hang: true }] });
  const stop = new AbortController();
  const record = await w.engine.run({ task: "Long" }, {
    signal: stop.signal,
    // The agent's first words: it is in its turn.
    onEvent: (ev) => ev.type === "worker.step" && stop.abort(),
  });
  assert.equal(record.outcome, "stopped");
  const log = await w.log();
  assert.ok(log.some((l) => l.method === "session/cancel"), "session/cancel was sent");
});

Deno.test("an ACP agent that stays after its answer is ended, and the run is still ok", async () => {
  await using w = await acpWorld({ steps: [say("Answer.")], exitOnEof: false });
  const record = await w.engine.run({ task: "Hi" });
  assert.equal(record.outcome, "ok", record.message);
  assert.equal(record.answer, "Answer.");
});

Deno.test("an ACP worker that writes in a read run without asking is held by the sandbox", async () => {
  await using w = await acpWorld({
    log: "",
    steps: [{ write: "src/app.ts", content: "export const answer = 0;\n" }, say("Done.")],
  }, { config: { sandbox: "required" } });
  const record = await w.engine.run({ task: "Just look" });
  assert.equal(record.attempts[0]?.sandbox, "bwrap");
  // The agent's write fails in the read-only tree (the fake agent dies of it).
  assert.equal(record.outcome, "failed");
  assert.match(record.message ?? "", /Read-only file system .*src\/app\.ts/);
  assert.equal(await Deno.readTextFile(join(w.repo, "src/app.ts")), "export const answer = 41;\n");
});

Deno.test("an ACP agent that echoes Pitroom's ids as strings is still understood", async () => {
  await using w = await acpWorld({ steps: [say("Fine.")], stringIds: true });
  const record = await w.engine.run({ task: "Hi", timeoutMs: 20_000 });
  assert.equal(record.outcome, "ok", record.message);
  assert.equal(record.answer, "Fine.");
});
