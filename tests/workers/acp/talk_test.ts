/**
 * The ACP talk and its policy (pure), on the streams recorded from the real agents (testdata/)
 * and on single messages.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { decide, floorHit, outcomeFor } from "../../../src/workers/acp/policy.ts";
import { AcpTalk } from "../../../src/workers/acp/talk.ts";
import { classifyAcp } from "../../../src/workers/acp/classify.ts";
import { readAt } from "../../support/line_time.ts";

const DIR = join(import.meta.dirname!, "testdata");

async function replay(name: string, mode: "read" | "write") {
  const lines = (await Deno.readTextFile(join(DIR, name))).split("\n").filter((l) => l !== "");
  const talk = new AcpTalk({ name: "agent", mode, web: false, cwd: "/repo", prompt: "task" });
  const events: WorkerEvent[] = [];
  const said: Record<string, unknown>[] = talk.open().map((l) => JSON.parse(l));
  let over = false;
  for (const [i, line] of lines.entries()) {
    const heard = talk.hear(line, readAt(1000 + i));
    events.push(...heard.events);
    said.push(...heard.say.map((l) => JSON.parse(l)));
    over ||= heard.over;
  }
  const calls = events.flatMap((e) =>
    e.type === "worker.tool_call" ? [`${e.kind} ${e.status} ${e.target}`] : []
  );
  const answer = events.find((e) => e.type === "worker.answer");
  const tokens = events.find((e) => e.type === "worker.tokens");
  return { events, said, over, calls, answer, tokens };
}

function permissionAnswers(said: Record<string, unknown>[]): unknown[] {
  return said.filter((m) => "result" in m).map((m) => m.result);
}

Deno.test("AcpTalk on gemini --acp (0.61.0) in a write run: its asks allowed once, steps, tokens and answer", async () => {
  const r = await replay("gem_write.jsonl", "write");
  assert.ok(r.over);
  assert.deepEqual(r.calls, [
    "read ok /repo/src/app.ts",
    "edit ok /repo/src/app.ts",
    "shell ok echo hi > shell.txt",
  ]);
  assert.deepEqual(permissionAnswers(r.said), [
    { outcome: { outcome: "selected", optionId: "proceed_once" } },
    { outcome: { outcome: "selected", optionId: "proceed_once" } },
  ]);
  assert.equal(r.answer?.type === "worker.answer" && r.answer.text, "Changed src/app.ts:1 to 42.");
  assert.ok(r.tokens?.type === "worker.tokens" && r.tokens.input > 0 && r.tokens.output > 0);
  const methods = r.said.flatMap((m) => typeof m.method === "string" ? [m.method] : []);
  assert.deepEqual(methods, ["initialize", "session/new", "session/prompt"]);
  assert.equal(classifyAcp(end(), r.events).class, "ok");
});

Deno.test("AcpTalk on gemini --acp (0.61.0) in a read run: its edit and command refused once each", async () => {
  const r = await replay("gem_read.jsonl", "read");
  assert.deepEqual(r.calls, [
    "read ok /repo/src/app.ts",
    "edit denied /repo/src/app.ts",
    "shell denied echo hi > shell.txt",
  ]);
  assert.deepEqual(permissionAnswers(r.said), [
    { outcome: { outcome: "selected", optionId: "cancel" } },
    { outcome: { outcome: "selected", optionId: "cancel" } },
  ]);
  assert.equal(r.events.filter((e) => e.type === "worker.denied").length, 2);
});

Deno.test("AcpTalk on opencode acp (1.18.33): calls, a failed edit in a read sandbox, usage", async () => {
  const w = await replay("oc_write.jsonl", "write");
  assert.deepEqual(w.calls, [
    "read ok /repo/src/app.ts",
    "edit ok /repo/src/app.ts",
    "shell ok echo hi > shell.txt",
  ]);
  assert.ok(w.tokens?.type === "worker.tokens" && w.tokens.input > 0);
  const r = await replay("oc_read.jsonl", "read");
  assert.equal(r.calls[1]?.startsWith("edit error /repo/src/app.ts"), true, r.calls.join("\n"));
  assert.equal(permissionAnswers(r.said).length, 0, "opencode asks nothing");
});

function end(over: Partial<Parameters<typeof classifyAcp>[0]> = {}) {
  return { code: 0, signal: null, timedOut: false, stopped: false, stderr: "", ...over };
}

Deno.test("decide() allows reading in a read run and refuses what changes, runs or leaves the tree", () => {
  const run = { mode: "read" as const, web: false, cwd: "/repo" };
  assert.deepEqual(decide({ kind: "read", locations: [{ path: "/repo/a.ts" }] }, run), {
    allow: true,
  });
  assert.deepEqual(decide({ kind: "search" }, run), { allow: true });
  for (const kind of ["edit", "delete", "move", "execute", "other", "mystery"]) {
    assert.equal(decide({ kind }, run).allow, false, kind);
  }
  assert.equal(decide({ kind: "read", locations: [{ path: "/etc/passwd" }] }, run).allow, false);
  assert.equal(decide({ kind: "read", locations: [{ path: "/repo/../etc" }] }, run).allow, false);
  assert.equal(decide({ kind: "fetch" }, run).allow, false);
  assert.equal(decide({ kind: "fetch" }, { ...run, web: true }).allow, true);
});

Deno.test("decide() in a write run: edits and commands in the tree, never .git, outside or the floor", () => {
  const run = { mode: "write" as const, web: false, cwd: "/repo" };
  assert.equal(decide({ kind: "edit", locations: [{ path: "src/a.ts" }] }, run).allow, true);
  assert.equal(decide({ kind: "execute", rawInput: { command: "npm test" } }, run).allow, true);
  assert.equal(decide({ kind: "edit", locations: [{ path: ".git/HEAD" }] }, run).allow, false);
  assert.equal(
    decide({ kind: "edit", locations: [{ path: "/repo/sub/.git/x" }] }, run).allow,
    false,
  );
  assert.equal(
    decide({
      kind: "edit",
      content: [{ type: "diff", path: "/repoX/a.ts", newText: "" }],
    }, run).allow,
    false,
  );
  for (
    const command of [
      "git commit -m x",
      "ls && git push",
      "FOO=1 sudo ls",
      "/usr/bin/sudo ls",
      "npm publish",
      "rm -rf src",
      "echo $(pitroom run x)",
    ]
  ) {
    assert.equal(decide({ kind: "execute", rawInput: { command } }, run).allow, false, command);
  }
  assert.equal(floorHit("sudoku --solve"), undefined);
  assert.equal(floorHit("git status"), undefined);
  assert.equal(decide({ kind: "execute", title: "git reset --hard" }, run).allow, false);
});

Deno.test("outcomeFor() picks the once options only, else cancelled", () => {
  const options = [
    { optionId: "a", kind: "allow_always" },
    { optionId: "o", kind: "allow_once" },
    { optionId: "r", kind: "reject_once" },
    { optionId: "ra", kind: "reject_always" },
  ];
  assert.deepEqual(outcomeFor({ allow: true }, options), { outcome: "selected", optionId: "o" });
  assert.deepEqual(outcomeFor({ allow: false, why: "x" }, options), {
    outcome: "selected",
    optionId: "r",
  });
  assert.deepEqual(outcomeFor({ allow: true }, [options[0]]), { outcome: "cancelled" });
  assert.deepEqual(outcomeFor({ allow: false, why: "x" }, [options[3]]), { outcome: "cancelled" });
  assert.deepEqual(outcomeFor({ allow: true }, "junk"), { outcome: "cancelled" });
});

Deno.test("classifyAcp() reads the agent's errors for the fallback classes", () => {
  const err = (message: string, name = "acp_prompt"): WorkerEvent[] => [
    { type: "worker.error", time: 1, message, name },
  ];
  assert.equal(classifyAcp(end(), err("[API Error: 429 Too Many Requests]")).class, "rate_limited");
  assert.equal(classifyAcp(end(), err("You exceeded your current quota")).class, "quota");
  assert.equal(classifyAcp(end(), err("Invalid API key (ACP error -32000)")).class, "auth");
  assert.equal(
    classifyAcp(end(), err("Requested entity was not found. 404")).class,
    "model_not_found",
  );
  assert.equal(
    classifyAcp(end(), err("x did not take model", "acp_model")).class,
    "model_not_found",
  );
  assert.equal(classifyAcp(end(), err("a flood", "acp_flood")).class, "failed");
  const died = classifyAcp(end({ code: 3, stderr: "boom: it broke\n" }), []);
  assert.equal(died.class, "failed");
  assert.match(died.message, /exited with code 3 before it answered the prompt: boom: it broke/);
  assert.equal(classifyAcp(end({ stopped: true }), []).class, "stopped");
  assert.equal(classifyAcp(end({ timedOut: true }), []).class, "timeout");
});

Deno.test("AcpTalk skips the history gemini --acp (0.61.0) replays after answering session/load", () => {
  // The order gemini 0.61.0 was seen to use: the load is answered after the first replayed
  // message, the rest of the history follows, then a command list update, then the live turn.
  const talk = new AcpTalk({
    name: "gem",
    mode: "read",
    web: false,
    cwd: "/repo",
    prompt: "again",
    sessionId: "s1",
  });
  const update = (u: Record<string, unknown>) =>
    JSON.stringify({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s1", update: u },
    });
  const chunk = (kind: string, text: string) =>
    update({ sessionUpdate: kind, content: { type: "text", text } });
  const lines = [
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: 1, agentCapabilities: { loadSession: true } },
    }),
    chunk("user_message_chunk", "<session_context>"),
    JSON.stringify({ jsonrpc: "2.0", id: 2, result: { modes: {} } }),
    chunk("user_message_chunk", "first task"),
    chunk("agent_message_chunk", "Reading."),
    update({ sessionUpdate: "tool_call", toolCallId: "old", status: "completed", kind: "read" }),
    chunk("user_message_chunk", "[Function Response: read_file]"),
    chunk("agent_message_chunk", "The old answer."),
    update({ sessionUpdate: "available_commands_update", availableCommands: [] }),
    chunk("agent_message_chunk", "The new answer."),
    JSON.stringify({ jsonrpc: "2.0", id: 4, result: { stopReason: "end_turn" } }),
  ];
  const said = talk.open();
  const events: WorkerEvent[] = [];
  for (const [i, line] of lines.entries()) {
    const heard = talk.hear(line, readAt(i + 1));
    events.push(...heard.events);
    said.push(...heard.say);
  }
  assert.deepEqual(said.map((l) => JSON.parse(l).method), [
    "initialize",
    "session/load",
    "session/prompt",
  ]);
  assert.equal(events.filter((e) => e.type === "worker.tool_call").length, 0);
  const answer = events.find((e) => e.type === "worker.answer");
  assert.equal(answer?.type === "worker.answer" && answer.text, "The new answer.");
});
