import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { isEvent, type WorkerEvent } from "../../../src/events/mod.ts";
import { geminiBackend } from "../../../src/workers/gemini/mod.ts";
import { retryHintMs, toolKind, toolTarget } from "../../../src/workers/gemini/parse.ts";
import { recorded, TIME } from "./_recorded.ts";
import { readAt } from "../../support/line_time.ts";

function ofType<T extends WorkerEvent["type"]>(events: WorkerEvent[], type: T) {
  return events.filter((e): e is Extract<WorkerEvent, { type: T }> => e.type === type);
}

Deno.test("parseLine() turns a recorded read run into session, steps, tool calls, tokens and answer", async () => {
  const { events, lines } = await recorded("read_answer");
  assertEquals(events.every(isEvent), true);
  assertEquals(events.map((e) => e.type), [
    "worker.session",
    "worker.step",
    "worker.text",
    "worker.tool_call",
    "worker.step",
    "worker.tool_call",
    "worker.step",
    "worker.tool_call",
    "worker.step",
    "worker.text",
    "worker.tokens",
    "worker.answer",
  ]);
  assertEquals(
    ofType(events, "worker.session")[0]?.sessionId,
    "00000000-0000-4000-8000-000000000000",
  );
  assertEquals(
    ofType(events, "worker.tool_call").map(({ tool, kind, target, status }) => ({
      tool,
      kind,
      target,
      status,
    })),
    [
      { tool: "grep_search", kind: "search", target: "hello", status: "ok" },
      { tool: "read_file", kind: "read", target: "/repo/a.txt", status: "ok" },
      { tool: "list_directory", kind: "list", target: "/repo", status: "ok" },
    ],
  );
  assertEquals(ofType(events, "worker.step").map((e) => e.index), [0, 1, 2, 3]);
  // The totals come from the result line (they follow request sizes, so a re-record moves them).
  const { stats } = JSON.parse(lines.findLast((l) => l.includes('"type":"result"')) ?? "{}");
  ok(stats.cached === 800 && stats.input === stats.input_tokens - 800, JSON.stringify(stats));
  assertEquals(ofType(events, "worker.tokens")[0], {
    type: "worker.tokens",
    time: TIME,
    input: stats.input,
    output: stats.output_tokens,
    cached: 800,
    reasoning: 0,
  });
  assertEquals(ofType(events, "worker.answer")[0]?.text, "a.txt says hello.");
});

Deno.test("parseLine() reports every refused call of a read run as denied, with a denied event", async () => {
  const { events } = await recorded("read_denied");
  const calls = ofType(events, "worker.tool_call");
  assertEquals(calls.map((c) => [c.tool, c.kind, c.status]), [
    ["replace", "edit", "denied"],
    ["run_shell_command", "shell", "denied"],
    ["web_fetch", "web", "denied"],
    ["write_file", "write", "denied"],
  ]);
  assertEquals(calls.map((c) => c.target), [
    "/repo/a.txt",
    "echo x > b.txt",
    "http://127.0.0.1:9/",
    "/repo/c.txt",
  ]);
  const denied = ofType(events, "worker.denied");
  assertEquals(denied.map((d) => d.tool), [
    "replace",
    "run_shell_command",
    "web_fetch",
    "write_file",
  ]);
  assertEquals(denied[0]?.message.startsWith('Tool "replace" not found'), true);
  assertEquals(ofType(events, "worker.answer")[0]?.text, "Could not.");
});

Deno.test("parseLine() reports a policy_violation of the write profile as denied and the allowed command as ok", async () => {
  const { events } = await recorded("shell_policy");
  assertEquals(
    ofType(events, "worker.tool_call").map((c) => [c.target, c.status, c.error]),
    [
      ["git commit --allow-empty -m x", "denied", "Tool execution denied by policy."],
      ["echo hi > d.txt", "ok", undefined],
    ],
  );
  assertEquals(ofType(events, "worker.denied").length, 1);
});

Deno.test("parseLine() reports an in-place edit as an edit tool call on the file", async () => {
  const { events } = await recorded("edit_write");
  assertEquals(
    ofType(events, "worker.tool_call").map((c) => [c.tool, c.kind, c.target, c.status]),
    [
      ["replace", "edit", "/repo/a.txt", "ok"],
    ],
  );
  assertEquals(ofType(events, "worker.answer")[0]?.text, "Changed a.txt.");
});

Deno.test("parseLine() turns an error result into worker.error with the status and retry hint", async () => {
  const rate = await recorded("error_rate_limit");
  const error = ofType(rate.events, "worker.error")[0];
  assertEquals(error?.retryAfterMs, 2000);
  assertEquals(ofType(rate.events, "worker.answer"), []);
  const auth = ofType((await recorded("error_auth")).events, "worker.error")[0];
  assertEquals(auth?.status, 400);
  const missing = ofType((await recorded("error_model_not_found")).events, "worker.error")[0];
  assertEquals(missing?.message.includes("models/nosuch is not found"), true);
});

Deno.test("parseLine() gives a stopped run only its session: no answer, no result", async () => {
  const { events } = await recorded("stopped");
  assertEquals(events.map((e) => e.type), ["worker.session"]);
});

Deno.test("parseLine() concatenates assistant deltas of one model turn into the answer", () => {
  const state = geminiBackend.newState();
  const lines = [
    { type: "message", role: "assistant", content: "Hel", delta: true },
    { type: "message", role: "assistant", content: "lo ", delta: true },
    { type: "message", role: "assistant", content: "world", delta: true },
    { type: "result", status: "success", stats: { input_tokens: 10, output_tokens: 3, cached: 0 } },
  ];
  const events = lines.flatMap((line) =>
    geminiBackend.parse(JSON.stringify(line), state, readAt(1))
  );
  assertEquals(ofType(events, "worker.answer")[0]?.text, "Hello world");
  assertEquals(ofType(events, "worker.tokens")[0]?.input, 10);
  assertEquals(ofType(events, "worker.step").length, 1);
});

Deno.test("parseLine() makes unrecognised lines explicit unknown events", () => {
  const state = geminiBackend.newState();
  assertEquals(geminiBackend.parse("not json", state, readAt(1)), [
    { type: "worker.unknown", time: 1, raw: "not json" },
  ]);
  assertEquals(
    geminiBackend.parse('{"type":"surprise"}', state, readAt(1))[0]?.type,
    "worker.unknown",
  );
});

Deno.test("toolKind() and toolTarget() name gemini tools and what they act on", () => {
  assertEquals(toolKind("run_shell_command"), "shell");
  assertEquals(toolKind("mcp_server_tool"), "other");
  assertEquals(toolTarget("google_web_search", { query: "deno compile" }), "deno compile");
  assertEquals(
    toolTarget("invoke_agent", { agent_name: "codebase_investigator" }),
    "codebase_investigator",
  );
  assertEquals(toolTarget("run_shell_command", { command: "x".repeat(400) }).length, 160);
});

Deno.test("retryHintMs() reads 'retry in' and 'retry after' hints", () => {
  assertEquals(retryHintMs("Please retry in 31.5s."), 31500);
  assertEquals(retryHintMs("Suggested retry after 2s."), 2000);
  assertEquals(retryHintMs("Please retry in 250ms"), 250);
  assertEquals(retryHintMs("no hint"), undefined);
});

Deno.test("parseLine() counts two tool calls of one model turn as one step", async () => {
  const { events } = await recorded("parallel_calls");
  assertEquals(ofType(events, "worker.step").map((e) => e.index), [0, 1]);
  assertEquals(ofType(events, "worker.tool_call").map((e) => [e.tool, e.status]), [
    ["read_file", "ok"],
    ["grep_search", "ok"],
  ]);
  assertEquals(ofType(events, "worker.text").map((e) => e.text), ["Two at once.", "Both done."]);
  assertEquals(ofType(events, "worker.answer")[0]?.text, "Both done.");
});

Deno.test("parseLine() reports paths refused outside the workspace (invalid_tool_params) as denied", async () => {
  const { events } = await recorded("read_outside");
  assertEquals(
    ofType(events, "worker.tool_call").map((e) => [e.tool, e.target, e.status]),
    [["read_file", "/etc/hostname", "denied"], ["list_directory", "/etc", "denied"]],
  );
  assertEquals(ofType(events, "worker.denied").length, 2);
  assertEquals(ofType(events, "worker.error"), []);
  // The sandbox's own wording for the same refusal.
  const state = geminiBackend.newState();
  const parse = (line: unknown) => geminiBackend.parse(JSON.stringify(line), state, readAt(TIME));
  parse({ type: "tool_use", tool_name: "read_file", tool_id: "t1", parameters: {} });
  const refused = parse({
    type: "tool_result",
    tool_id: "t1",
    status: "error",
    error: {
      type: "invalid_tool_params",
      message:
        "Access denied: Path '/etc/passwd' is outside the workspace and not in allowed paths.",
    },
  });
  assertEquals(refused.map((e) => e.type === "worker.tool_call" ? e.status : e.type), [
    "denied",
    "worker.denied",
  ]);
  // Other invalid parameters stay errors.
  parse({ type: "tool_use", tool_name: "read_file", tool_id: "t2", parameters: {} });
  const bad = parse({
    type: "tool_result",
    tool_id: "t2",
    status: "error",
    error: {
      type: "invalid_tool_params",
      message: "params must have required property 'file_path'",
    },
  });
  assertEquals(bad.map((e) => e.type === "worker.tool_call" ? e.status : e.type), ["error"]);
});

Deno.test("parseLine() reports a call gemini would have asked about (headless: refused) as denied", async () => {
  const { events } = await recorded("shell_ask");
  assertEquals(
    ofType(events, "worker.tool_call").map((e) => [e.tool, e.target, e.status]),
    [["run_shell_command", "ln -s a.txt link.txt", "denied"]],
  );
  assertEquals(ofType(events, "worker.denied").map((e) => e.tool), ["run_shell_command"]);
  assertEquals(ofType(events, "worker.answer")[0]?.text, "Could not link.");
});

/** The call of recording edit_write's first tool lines, their timestamps set, read `at`. */
async function recordedEdit(useAt: string, resultAt: string, at: ReturnType<typeof readAt>) {
  const { lines } = await recorded("edit_write");
  const state = geminiBackend.newState();
  const [use, result] = lines.filter((l) => /"type":"tool_(use|result)"/.test(l));
  const stamp = (line: string, ts: string) =>
    line.replace(/"timestamp":"[^"]*"/, JSON.stringify({ timestamp: ts }).slice(1, -1));
  geminiBackend.parse(stamp(use!, useAt), state, at);
  return ofType(geminiBackend.parse(stamp(result!, resultAt), state, at), "worker.tool_call")[0];
}

Deno.test("parseLine() starts a call at its tool_use line's timestamp and ends it at its result's", async () => {
  const start = Date.parse("2026-12-05T09:59:58.000Z");
  // Both lines read late, in one chunk, at 900; the read before it was asked for at 500.
  const at = readAt(start + 900, start + 500, start);
  const call = await recordedEdit("2026-12-05T09:59:58.522Z", "2026-12-05T09:59:58.604Z", at);
  assertEquals([call?.tool, call?.started, call?.ended, call?.time], [
    "replace",
    start + 522,
    start + 604,
    start + 900,
  ]);
  // A timestamp after the line was read or before the process started: the line's bound.
  const ahead = await recordedEdit("2026-12-05T09:59:58.950Z", "2026-12-05T09:59:58.990Z", at);
  assertEquals([ahead?.started, ahead?.ended], [start + 500, undefined]);
  const behind = await recordedEdit("2026-12-05T08:00:00.000Z", "2026-12-05T09:59:58.604Z", at);
  assertEquals([behind?.started, behind?.ended], [start + 500, start + 604]);
});
