import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { isEvent, type WorkerEvent } from "../../../src/events/mod.ts";
import { qwenBackend } from "../../../src/workers/qwen/mod.ts";
import { apiStatus, describeQwenTool, retryHintMs } from "../../../src/workers/qwen/parse.ts";
import { recorded, TIME } from "./_recorded.ts";
import { readAt } from "../../support/line_time.ts";

function ofType<T extends WorkerEvent["type"]>(events: WorkerEvent[], type: T) {
  return events.filter((e): e is Extract<WorkerEvent, { type: T }> => e.type === type);
}

function calls(events: WorkerEvent[]) {
  return ofType(events, "worker.tool_call").map(({ tool, kind, target, status }) => ({
    tool,
    kind,
    target,
    status,
  }));
}

Deno.test("parseQwenLine() turns a recorded read run into session, steps, tool calls, tokens and answer", async () => {
  const { events } = await recorded("read_answer");
  assertEquals(events.every(isEvent), true);
  assertEquals(
    ofType(events, "worker.session").map((e) => e.sessionId),
    ["00000000-0000-0000-0000-000000000001"],
  );
  assertEquals(calls(events), [
    { tool: "grep_search", kind: "search", target: "hello", status: "ok" },
    { tool: "read_file", kind: "read", target: "a.txt", status: "ok" },
    { tool: "glob", kind: "search", target: "* in /repo", status: "ok" },
  ]);
  assertEquals(ofType(events, "worker.step").map((e) => e.index), [0, 1, 2, 3]);
  // The second call reported 100 input tokens of which 50 cached (qwen counts cached inside the
  // input), 10 output; the last 8000 + 800 cached, 12 output.
  const tokens = ofType(events, "worker.tokens");
  assertEquals(tokens[1], {
    type: "worker.tokens",
    time: TIME,
    input: 100,
    output: 10,
    cached: 50,
    reasoning: 0,
  });
  assertEquals(tokens.at(-1)?.cached, 800);
  assertEquals(tokens.at(-1)?.input, 8000);
  // The calls' lines add up to the result line's totals: nothing is added twice.
  assertEquals(tokens.reduce((sum, t) => sum + t.cached, 0), 850);
  assertEquals(ofType(events, "worker.answer").map((e) => e.text), ["a.txt says hello."]);
  assertEquals(ofType(events, "worker.unknown"), []);
  // qwen states no times: a call starts no later than the moment its line was written after.
  assertEquals(ofType(events, "worker.tool_call").map((e) => e.started), [TIME, TIME, TIME]);
});

Deno.test("parseQwenLine() reports every refused call of a read run as denied, with a denied event", async () => {
  const { events } = await recorded("read_denied");
  assertEquals(calls(events).map((c) => [c.tool, c.kind, c.status]), [
    ["edit", "edit", "denied"],
    ["run_shell_command", "shell", "denied"],
    ["web_fetch", "web", "denied"],
    ["write_file", "write", "denied"],
  ]);
  assertEquals(ofType(events, "worker.denied").map((e) => e.tool), [
    "edit",
    "run_shell_command",
    "web_fetch",
    "write_file",
  ]);
  assertEquals(ofType(events, "worker.answer").map((e) => e.text), ["Could not."]);
});

Deno.test("parseQwenLine() reports a floor command refused in write mode, and the shell call that ran", async () => {
  const { events } = await recorded("shell_floor");
  assertEquals(calls(events), [
    {
      tool: "run_shell_command",
      kind: "shell",
      target: "git commit --allow-empty -m x",
      status: "denied",
    },
    { tool: "run_shell_command", kind: "shell", target: "echo hi > d.txt", status: "ok" },
  ]);
});

Deno.test("parseQwenLine() reads edits and writes, and two calls of one model turn as one step", async () => {
  const edit = await recorded("edit_write");
  assertEquals(calls(edit.events).map((c) => [c.tool, c.kind, c.target, c.status]), [
    ["read_file", "read", "a.txt", "ok"],
    ["edit", "edit", "a.txt", "ok"],
    ["write_file", "write", "b.txt", "ok"],
  ]);
  const multi = await recorded("parallel_calls");
  assertEquals(ofType(multi.events, "worker.step").length, 2);
  assertEquals(calls(multi.events).map((c) => c.tool), ["read_file", "grep_search"]);
});

Deno.test("parseQwenLine() keeps the session of a resumed run", async () => {
  const first = await recorded("parallel_calls");
  const next = await recorded("resumed");
  assertEquals(
    ofType(next.events, "worker.session").map((e) => e.sessionId),
    ofType(first.events, "worker.session").map((e) => e.sessionId),
  );
  assertEquals(ofType(next.events, "worker.answer").map((e) => e.text), ["Resumed."]);
});

Deno.test("parseQwenLine() turns an API error into one error event with its status and no answer", async () => {
  const { events } = await recorded("error_model_not_found");
  assertEquals(ofType(events, "worker.answer"), []);
  const errors = ofType(events, "worker.error");
  assertEquals(errors.length, 1);
  assertEquals(errors[0]?.status, 404);
  assertEquals(errors[0]?.retryable, false);
  // The assistant line that repeats the error is not the run's text.
  assertEquals(ofType(events, "worker.text"), []);
});

Deno.test("parseQwenLine() makes an unknown event of a line that is not qwen's", () => {
  const state = qwenBackend.newState();
  assertEquals(qwenBackend.parse("not json", state, readAt(TIME)), [
    { type: "worker.unknown", time: TIME, raw: "not json" },
  ]);
  assertEquals(
    qwenBackend.parse('{"type":"system","subtype":"nova"}', state, readAt(TIME)).map((e) => e.type),
    [
      "worker.unknown",
    ],
  );
});

Deno.test("describeQwenTool() names a deferred tool called through tool_call by the tool itself", () => {
  assertEquals(
    describeQwenTool("tool_call", { name: "web_fetch", arguments: { url: "http://x/" } }, "/r"),
    { tool: "web_fetch", kind: "web", target: "http://x/" },
  );
  assertEquals(describeQwenTool("constructor", {}, null).kind, "other");
});

Deno.test("retryHintMs() and apiStatus() read qwen's error wording", () => {
  assertEquals(retryHintMs("Please try again in 20s."), 20_000);
  assertEquals(retryHintMs("Please try again in 7m12s."), 432_000);
  assertEquals(retryHintMs("no hint"), undefined);
  assertEquals(apiStatus("[API Error: 429 Rate limit reached]"), 429);
  assertEquals(apiStatus("nothing"), undefined);
});
