/**
 * Malformed ACP through the engine with a real process: a scripted fake agent
 * (tests/support/fake_acp_agent.ts) sends garbage, truncated JSON, unknown methods, a flood of
 * permission requests, dies in the middle of a call, hangs or speaks another protocol version.
 * Whatever it does, the run ends (no hang: each has a bound), with an outcome and a message that
 * says what went wrong.
 */
import assert from "node:assert/strict";
import type { AgentStep } from "../support/fake_acp_agent.ts";
import { prng } from "../workers/_fixtures/fuzz.ts";
import { acpWorld } from "../support/acp_world.ts";

const say = (text: string): AgentStep => ({
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
});

Deno.test("an ACP agent's garbage, truncated JSON and unknown methods are survived: the run still answers", async () => {
  await using w = await acpWorld({
    steps: [
      { raw: "not json at all" },
      { raw: '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s' },
      { raw: "\u0000\u0001\ufffd" },
      { raw: '{"jsonrpc":"1.0","id":4,"result":{"stopReason":"end_turn"}}' },
      { raw: '{"jsonrpc":"2.0","id":99,"result":{}}' },
      { raw: '{"jsonrpc":"2.0","method":"mystery/notice","params":{}}' },
      {
        raw:
          '{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"x"}}}',
      },
      { ask: "mystery/method" },
      { update: { sessionUpdate: "tool_call", toolCallId: { bad: 1 }, kind: 7, status: [] } },
      say("Still here."),
    ],
  });
  const record = await w.engine.run({ task: "Hi", timeoutMs: 60_000 });
  assert.equal(record.outcome, "ok", record.message);
  assert.equal(record.answer, "Still here.");
  const asked = (await w.log()).find((l) => l.asked === "mystery/method");
  assert.equal((asked?.answer as { code?: number })?.code, -32601);
});

Deno.test("a flood of ACP permission requests ends the run with a clear error", async () => {
  await using w = await acpWorld({ steps: [{ flood: 600 }, { hang: true }] });
  const record = await w.engine.run({ task: "Hi", mode: "write", timeoutMs: 60_000 });
  assert.equal(record.outcome, "failed");
  assert.match(record.message ?? "", /more than 500 requests in one run \(a flood\)/);
});

Deno.test("an ACP agent that dies in the middle of a call fails the run saying so", async () => {
  await using w = await acpWorld({
    steps: [
      say("Editing."),
      { update: { sessionUpdate: "tool_call", toolCallId: "c1", kind: "edit", status: "pending" } },
      { permission: { toolCallId: "c1", kind: "edit", locations: [{ path: "src/app.ts" }] } },
      { exit: 7 },
    ],
  });
  const record = await w.engine.run({ task: "Hi", mode: "write", timeoutMs: 60_000 });
  assert.equal(record.outcome, "failed");
  assert.match(
    record.message ?? "",
    /The ACP agent exited with code 7 before it answered the prompt/,
  );
});

Deno.test("an ACP agent that dies before it answers initialize, or speaks another version, fails clearly", async () => {
  {
    await using w = await acpWorld({
      beforeInit: [{ raw: '{"jsonrpc":' }, { exit: 3 }],
      steps: [],
    });
    const record = await w.engine.run({ task: "Hi", timeoutMs: 60_000 });
    assert.equal(record.outcome, "failed");
    assert.match(record.message ?? "", /exited with code 3 before it answered the prompt/);
  }
  await using w = await acpWorld({ initialize: { protocolVersion: 2 }, steps: [] });
  const record = await w.engine.run({ task: "Hi", timeoutMs: 60_000 });
  assert.equal(record.outcome, "failed");
  assert.match(record.message ?? "", /fake speaks ACP version 2; Pitroom speaks version 1/);
  // No prompt was sent: no tokens were used, which is known (not "not reported").
  assert.equal(record.progress.tokensUnreported, undefined);
});

Deno.test("an ACP agent that never answers initialize ends at the run's timeout", async () => {
  await using w = await acpWorld({ beforeInit: [{ hang: true }], steps: [] });
  const record = await w.engine.run({ task: "Hi", timeoutMs: 3_000 });
  assert.equal(record.outcome, "timeout");
});

Deno.test("an ACP agent's error answer to the prompt is classified for the fallback", async () => {
  await using w = await acpWorld({
    steps: [],
    error: { code: -32603, message: "[API Error: 429 Too Many Requests] retry in 20s" },
  });
  const record = await w.engine.run({ task: "Hi", timeoutMs: 60_000 });
  assert.equal(record.outcome, "rate_limited", record.message);
});

/** A random misbehaviour: garbage and real messages mixed, then an end of one kind or another. */
function randomSteps(rand: () => number): { steps: AgentStep[]; end: "answer" | "exit" | "hang" } {
  const steps: AgentStep[] = [];
  const valid = JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: "ses_fake_1", update: { sessionUpdate: "agent_message_chunk" } },
  });
  for (let i = 0; i < 12; i++) {
    const r = rand();
    if (r < 0.2) steps.push({ raw: valid.slice(0, Math.floor(rand() * valid.length)) });
    else if (r < 0.35) {
      steps.push({
        raw: Array.from({ length: 40 }, () => String.fromCharCode(rand() * 600)).join(""),
      });
    } else if (r < 0.5) steps.push({ ask: `x/${Math.floor(rand() * 1000)}` });
    else if (r < 0.65) {
      steps.push({ permission: { toolCallId: `p${i}`, kind: rand() < 0.5 ? "edit" : "read" } });
    } else if (r < 0.8) {
      steps.push({
        update: {
          sessionUpdate: "tool_call",
          toolCallId: `t${i}`,
          kind: "read",
          status: "completed",
        },
      });
    } else steps.push(say(`w${i} `));
  }
  const e = rand();
  const end = e < 0.4 ? "answer" : e < 0.7 ? "exit" : "hang";
  if (end === "exit") steps.push({ exit: 1 + Math.floor(rand() * 100) });
  if (end === "hang") steps.push({ hang: true });
  return { steps, end };
}

Deno.test("seeded random misbehaving ACP agents: every run ends with an outcome and a reason", async () => {
  for (const seed of [11, 12, 13, 14, 15, 16]) {
    const { steps, end } = randomSteps(prng(seed));
    await using w = await acpWorld({ steps, exitOnEof: seed % 2 === 0 });
    const record = await w.engine.run({ task: "Hi", mode: "write", timeoutMs: 4_000 });
    const where = `seed ${seed} (${end}): ${record.outcome} ${record.message}`;
    assert.ok(record.state === "done" || record.state === "problem", where);
    if (end === "answer") assert.equal(record.outcome, "ok", where);
    if (end === "exit") {
      assert.equal(record.outcome, "failed", where);
      assert.match(record.message ?? "", /exited with code \d+ before it answered/, where);
    }
    if (end === "hang") assert.equal(record.outcome, "timeout", where);
  }
});
