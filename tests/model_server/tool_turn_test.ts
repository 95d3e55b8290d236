/**
 * The generic `tool: {name, input}` turn (version 2 of the scenario format): a tool called by its
 * exact name with this input, in every dialect, for MCP tools and anything the action table does
 * not map.
 */
import assert from "node:assert/strict";
import { chatCall } from "../support/model_server/dialects/chat.ts";
import { geminiCall } from "../support/model_server/dialects/gemini.ts";
import { messagesCalls } from "../support/model_server/dialects/messages.ts";
import { actionItem, readResponsesRequest } from "../support/model_server/dialects/responses.ts";
import { tempServer } from "./_chat.ts";
import type { Action, Conversation } from "../support/model_server/dialect.ts";
import { parseScenario, ScenarioError } from "../support/model_server/scenario.ts";

const INPUT = { task: "Say which file adds", mode: "read", waitSeconds: 60, nested: { a: [1] } };
const CALL: Action = { tool: { name: "mcp__pitroom__pitroom_run", input: INPUT } };

const conversation: Conversation = {
  model: "m",
  toolsOffered: ["Read", "mcp__pitroom__pitroom_run"],
  latestUser: "",
  userTurns: 1,
  toolRounds: 0,
  cwd: "/work/repo",
  stream: true,
};

Deno.test("parseScenario() reads a tool turn, alone or in calls, and names its faults", () => {
  const scenario = parseScenario("t", {
    turns: [
      { say: "Delegating.", tool: { name: "mcp__pitroom__pitroom_run", input: INPUT } },
      { calls: [{ tool: { name: "x" } }, { read: "a" }] },
      { answer: "Done." },
    ],
  });
  assert.deepEqual(scenario.turns[0]!.calls, [CALL]);
  assert.deepEqual(scenario.turns[1]!.calls, [{ tool: { name: "x", input: {} } }, { read: "a" }]);
  const faults: [unknown, string][] = [
    [{ tool: "x" }, `turns[0].tool: expected an object with name`],
    [{ tool: { input: {} } }, `turns[0].tool: missing "name"`],
    [{ tool: { name: "" } }, `turns[0].tool.name: expected a tool name`],
    [{ tool: { name: "x", input: [1] } }, `turns[0].tool.input: expected an object`],
    [{ tool: { name: "x", args: {} } }, `turns[0].tool: unknown key "args"`],
    [{ tool: { name: "x" }, read: "a" }, `more than one action (read, tool)`],
  ];
  for (const [turn, message] of faults) {
    assert.throws(() => parseScenario("bad", { turns: [turn] }), (error: unknown) => {
      assert.ok(error instanceof ScenarioError);
      assert.ok(error.message.includes(message), `${error.message} has ${message}`);
      return true;
    });
  }
});

Deno.test("every dialect calls the tool by its exact name with the input as given", () => {
  assert.deepEqual(chatCall(CALL, "/work/repo", ["read"]), {
    name: "mcp__pitroom__pitroom_run",
    args: INPUT,
  });
  assert.deepEqual(geminiCall(CALL, "/work/repo"), {
    name: "mcp__pitroom__pitroom_run",
    args: INPUT,
  });
  assert.deepEqual(messagesCalls(CALL, conversation), [
    { name: "mcp__pitroom__pitroom_run", input: INPUT },
  ]);
  const item = actionItem(CALL, conversation, "call_abc_0");
  assert.deepEqual(
    { ...item, arguments: JSON.parse(String(item.arguments)) },
    {
      type: "function_call",
      id: "fc_abc_0",
      call_id: "call_abc_0",
      name: "mcp__pitroom__pitroom_run",
      arguments: INPUT,
      status: "completed",
    },
  );
});

Deno.test("codex's namespaced MCP tools are offered as <namespace>__<tool> and called inside the namespace", () => {
  const conv = readResponsesRequest({
    model: "fake/x",
    input: [{ type: "message", role: "user", content: "go" }],
    tools: [{ type: "function", name: "exec_command" }, {
      type: "namespace",
      name: "mcp__pitroom",
      tools: [{ type: "function", name: "pitroom_run" }, {
        type: "function",
        name: "pitroom_wait",
      }],
    }],
  });
  assert.deepEqual(conv.toolsOffered, [
    "exec_command",
    "mcp__pitroom__pitroom_run",
    "mcp__pitroom__pitroom_wait",
  ]);
  const item = actionItem(CALL, conv, "call_abc_0");
  assert.deepEqual([item.namespace, item.name], ["mcp__pitroom", "pitroom_run"]);
  const plain = actionItem({ tool: { name: "exec_command", input: {} } }, conv, "call_abc_1");
  assert.deepEqual([item.type, plain.namespace, plain.name], [
    "function_call",
    undefined,
    "exec_command",
  ]);
});

Deno.test("the request log carries the tool results that reached the model", async () => {
  await using server = await tempServer({ t: { turns: [{ answer: "ok" }] } });
  const body = {
    model: "fake/t",
    stream: false,
    max_tokens: 10,
    tools: [{ name: "mcp__pitroom__pitroom_run", input_schema: {} }],
    messages: [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x", input: {} }] },
      {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: "t1",
          content: [{ type: "text", text: "ANSWER 42" }],
        }],
      },
    ],
  };
  const response = await server.handler(
    new Request("http://127.0.0.1/v1/messages", { method: "POST", body: JSON.stringify(body) }),
  );
  await response.body?.cancel();
  const [entry] = server.handler.requests();
  assert.deepEqual(entry?.results, ['[{"type":"text","text":"ANSWER 42"}]']);
});
