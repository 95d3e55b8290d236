import assert from "node:assert/strict";
import {
  editPatch,
  errorResponse,
  readResponsesRequest,
  writePatch,
} from "../support/model_server/dialects/responses.ts";

const user = (text: string) => ({
  type: "message",
  role: "user",
  content: [{ type: "input_text", text }],
});

Deno.test("readResponsesRequest() skips codex's injected context and reads its cwd", () => {
  const conversation = readResponsesRequest({
    model: "fake/read-answer",
    tools: [{ type: "function", name: "exec_command" }, { type: "custom", name: "apply_patch" }],
    input: [
      user("<environment_context>\n  <cwd>/tmp/repo</cwd>\n</environment_context>"),
      user("Do it [[scenario:x]]"),
      { type: "function_call", call_id: "call_ab12_0", name: "exec_command", arguments: "{}" },
      { type: "function_call_output", call_id: "call_ab12_0", output: "ok" },
      { type: "function_call", call_id: "call_ab12_1", name: "exec_command", arguments: "{}" },
      { type: "function_call_output", call_id: "call_ab12_1", output: "ok" },
      { type: "custom_tool_call", call_id: "call_cd34_0", name: "apply_patch", input: "" },
      { type: "custom_tool_call_output", call_id: "call_cd34_0", output: "ok" },
    ],
  });
  assert.deepEqual(conversation, {
    model: "fake/read-answer",
    toolsOffered: ["exec_command", "apply_patch"],
    latestUser: "Do it [[scenario:x]]",
    userTurns: 1,
    toolRounds: 2,
    cwd: "/tmp/repo",
    stream: true,
    toolResults: ["ok", "ok", "ok"],
  });
});

Deno.test("editPatch() replaces the lines that hold the old text, with context", () => {
  const patch = editPatch("src/a.ts", "one\ntwo\nlet x = a+b;\nfour\n", "a+b", "a + b");
  assert.equal(
    patch,
    "*** Begin Patch\n*** Update File: src/a.ts\n@@\n one\n two\n-let x = a+b;\n+let x = a + b;\n*** End Patch\n",
  );
});

Deno.test("writePatch() adds a new file and replaces an existing one whole", () => {
  assert.equal(
    writePatch("n.txt", "a\nb\n", null),
    "*** Begin Patch\n*** Add File: n.txt\n+a\n+b\n*** End Patch\n",
  );
  assert.equal(
    writePatch("n.txt", "c\n", "a\n"),
    "*** Begin Patch\n*** Update File: n.txt\n@@\n-a\n+c\n*** End Patch\n",
  );
});

Deno.test("errorResponse() answers quota in OpenAI's shape with retry-after", async () => {
  const response = errorResponse({
    status: 429,
    kind: "quota",
    message: "",
    retryAfterS: 3,
    model: "fake/x",
  });
  assert.equal(response.status, 429);
  assert.equal(response.headers.get("retry-after"), "3");
  const body = await response.json();
  assert.equal(body.error.code, "insufficient_quota");
  assert.match(body.error.message, /exceeded your current quota/);
});
