/**
 * The opencode parser against streams recorded from opencode 1.18.33 (snapshots of the parsed
 * events) and against single lines for the shapes the recordings do not cover.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { isEvent } from "../../../src/events/mod.ts";
import { opencodeBackend } from "../../../src/workers/opencode/mod.ts";
import {
  parseOpencodeLine,
  parseOpencodeStderr,
  retryAfterFromText,
} from "../../../src/workers/opencode/parse.ts";
import {
  assertSnapshot,
  recorded,
  recordedParts,
  sizeCountsMasked,
  TESTDATA,
  TIME,
} from "./_recorded.ts";
import { readAt } from "../../support/line_time.ts";

const RECORDINGS = [
  "read_answer",
  "edit",
  "denied_edit",
  "write_denied_commit",
  "error_404",
  "error_429",
  "error_quota",
  "error_401",
  "error_unconfigured_model",
  "error_unconfigured_model_no_logs",
  "ask_rejected",
];

function ofType<K extends WorkerEvent["type"]>(events: WorkerEvent[], type: K) {
  return events.filter((e): e is Extract<WorkerEvent, { type: K }> => e.type === type);
}

function one(line: unknown, state = opencodeBackend.newState()): WorkerEvent[] {
  return parseOpencodeLine(
    typeof line === "string" ? line : JSON.stringify(line),
    state,
    readAt(TIME),
  );
}

for (const name of RECORDINGS) {
  Deno.test(`parseOpencodeLine() turns recording ${name} into its snapshot of valid events`, async () => {
    const { events } = await recorded(name);
    for (const e of events) assert.ok(isEvent(e), `not a valid event: ${JSON.stringify(e)}`);
    assert.equal(ofType(events, "worker.unknown").length, 0);
    await assertSnapshot(name, sizeCountsMasked(events));
  });
}

Deno.test("parseOpencodeLine() maps every recorded step_finish to a tokens event", async () => {
  for (const name of RECORDINGS) {
    const { lines, events } = await recorded(name);
    const expected = lines.map((line) => JSON.parse(line))
      .filter((line) => line.type === "step_finish")
      .map(({ part }) => ({
        type: "worker.tokens",
        time: TIME,
        // opencode's input leaves cached reads out; cache writes are billed as input.
        input: part.tokens.input + part.tokens.cache.write,
        output: part.tokens.output,
        cached: part.tokens.cache.read,
        reasoning: part.tokens.reasoning,
        cost: part.cost,
      }));
    assert.deepEqual(ofType(events, "worker.tokens"), expected, name);
  }
});

Deno.test("parseOpencodeLine() takes the answer from the step that stops, not earlier text", async () => {
  const { events } = await recorded("read_answer");
  assert.deepEqual(ofType(events, "worker.text").map((e) => e.text), [
    "Looking.",
    "notes.txt says hello world.",
  ]);
  assert.deepEqual(ofType(events, "worker.answer").map((e) => e.text), [
    "notes.txt says hello world.",
  ]);
  assert.deepEqual(ofType(events, "worker.session").map((e) => e.sessionId), ["ses_0001"]);
  assert.deepEqual(ofType(events, "worker.step").map((e) => e.index), [0, 1, 2]);
});

Deno.test("parseOpencodeLine() maps step_finish to tokens with input excluding cached reads", async () => {
  const { events } = await recorded("read_answer");
  const last = ofType(events, "worker.tokens").at(-1);
  assert.deepEqual(
    { input: last?.input, output: last?.output, cached: last?.cached, cost: last?.cost },
    { input: 100, output: 20, cached: 40, cost: 0 },
  );
});

Deno.test("parseOpencodeLine() reports tool calls with kind and target", async () => {
  const { events } = await recorded("read_answer");
  assert.deepEqual(
    ofType(events, "worker.tool_call").map((e) => [e.tool, e.kind, e.target, e.status]),
    [["read", "read", "/REPO/notes.txt", "ok"], ["grep", "search", "hello", "ok"]],
  );
});

Deno.test("parseOpencodeLine() maps removed tools and rule denials to denied calls", async () => {
  const { events } = await recorded("denied_edit");
  assert.deepEqual(
    ofType(events, "worker.tool_call").map((e) => [e.tool, e.kind, e.target, e.status]),
    // A call of a removed tool reaches the stream without its arguments: no target.
    [
      ["edit", "edit", "", "denied"],
      ["bash", "shell", "echo pwned > pwned.txt", "denied"],
      ["webfetch", "web", "", "denied"],
    ],
  );
  const denied = ofType(events, "worker.denied");
  assert.deepEqual(denied.map((e) => e.tool), ["edit", "bash", "webfetch"]);
  assert.match(denied[1]?.message ?? "", /rule which prevents you/);
  assert.doesNotMatch(denied[1]?.message ?? "", /relevant rules/, "the rules dump is cut");
});

Deno.test("parseOpencodeLine() reads status, retryability and retry-after from an error", async () => {
  const { events } = await recorded("error_429");
  const [error] = ofType(events, "worker.error");
  assert.equal(error?.status, 429);
  assert.equal(error?.retryable, true);
  assert.equal(error?.name, "APIError");
  assert.equal(error?.retryAfterMs, 1000, "the retry-after header wins over the message");
});

Deno.test("parseOpencodeStderr() recovers the cause the stream calls an unexpected error", async () => {
  const { events } = await recorded("error_unconfigured_model");
  const errors = ofType(events, "worker.error");
  assert.deepEqual(errors.map((e) => e.name), ["UnknownError", "ProviderModelNotFoundError"]);
  assert.match(errors[1]?.message ?? "", /^ProviderModelNotFoundError: Model not found: fake\//);
  assert.doesNotMatch(errors[1]?.message ?? "", /chunk-/, "no stack");
});

Deno.test("parseOpencodeLine() and parseOpencodeStderr() make one denial of an auto-rejected ask", async () => {
  const { events } = await recorded("ask_rejected");
  assert.deepEqual(
    ofType(events, "worker.tool_call").map((e) => [e.tool, e.target, e.status]),
    [["bash", "touch x.txt", "denied"]],
  );
  assert.deepEqual(ofType(events, "worker.denied").map((e) => e.message), [
    "The user rejected permission to use this specific tool call.",
  ]);
  assert.equal(ofType(events, "worker.answer").length, 0);
});

Deno.test("parseOpencodeStderr() before the stream's call still makes one refusal", async () => {
  // stdout and stderr are read apart: the stderr line of the ask may come first.
  const { lines, stderr } = await recordedParts("ask_rejected");
  const state = opencodeBackend.newState();
  const events = [
    ...stderr.flatMap((line) => parseOpencodeStderr(line, state, readAt(TIME))),
    ...lines.flatMap((line) => parseOpencodeLine(line, state, readAt(TIME))),
  ];
  assert.deepEqual(
    ofType(events, "worker.tool_call").map((e) => [e.tool, e.status]),
    [["bash", "denied"]],
  );
  assert.deepEqual(ofType(events, "worker.denied").map((e) => e.message), [
    "permission asked and auto-rejected: touch x.txt",
  ]);
});

Deno.test("parseOpencodeStderr() ignores the per-retry error log lines", () => {
  const line =
    'timestamp=2023-11-14T22:13:20.000Z level=ERROR run=00000000 message="stream error" error.error="AI_APICallError: Rate limit"';
  assert.deepEqual(parseOpencodeStderr(line, opencodeBackend.newState(), readAt(TIME)), []);
});

Deno.test("parseOpencodeStderr() turns an auto-rejected ask into a denied call", () => {
  const line = "\x1b[93m\x1b[1m! \x1b[0mpermission requested: bash (touch x.txt); auto-rejecting";
  assert.deepEqual(parseOpencodeStderr(line, opencodeBackend.newState(), readAt(TIME)), [{
    type: "worker.tool_call",
    time: TIME,
    tool: "bash",
    kind: "shell",
    target: "touch x.txt",
    status: "denied",
    error: "permission asked and auto-rejected: touch x.txt",
  }, {
    type: "worker.denied",
    time: TIME,
    tool: "bash",
    message: "permission asked and auto-rejected: touch x.txt",
  }]);
});

Deno.test("parseOpencodeStderr() reports a fallback to the default agent as an error", () => {
  const line = '! agent "pitroom-read" not found. Falling back to default agent';
  const [error] = parseOpencodeStderr(line, opencodeBackend.newState(), readAt(TIME));
  assert.equal(error?.type, "worker.error");
  assert.equal(error?.type === "worker.error" ? error.name : "", "AgentMissing");
});

Deno.test("parseOpencodeLine() makes a non-JSON line and an unknown type explicit unknowns", () => {
  assert.deepEqual(one("Update available"), [
    { type: "worker.unknown", time: TIME, raw: "Update available" },
  ]);
  const line = JSON.stringify({ type: "brand_new", timestamp: 1, sessionID: "ses_1" });
  assert.deepEqual(one(line).map((e) => e.type), ["worker.session", "worker.unknown"]);
});

Deno.test("parseOpencodeLine() gives reasoning its own event and no answer on tool-calls", () => {
  const state = opencodeBackend.newState();
  const events = [
    { type: "step_start", sessionID: "s", part: {} },
    { type: "reasoning", sessionID: "s", part: { text: "Hmm." } },
    { type: "text", sessionID: "s", part: { text: "Reading first." } },
    { type: "step_finish", sessionID: "s", part: { reason: "tool-calls", tokens: {} } },
  ].flatMap((line) => one(line, state));
  assert.deepEqual(events.map((e) => e.type), [
    "worker.session",
    "worker.step",
    "worker.reasoning",
    "worker.text",
    "worker.tokens",
  ]);
});

Deno.test("parseOpencodeLine() counts cache writes as input (no recording has any)", () => {
  const tokens = { input: 10, output: 3, reasoning: 1, cache: { read: 4, write: 6 } };
  const [event] = one({ type: "step_finish", part: { reason: "stop", tokens, cost: 0.5 } });
  assert.deepEqual(event, {
    type: "worker.tokens",
    time: TIME,
    input: 16,
    output: 3,
    cached: 4,
    reasoning: 1,
    cost: 0.5,
  });
});

Deno.test("parseOpencodeLine() marks a failed tool that was not denied as an error", () => {
  const [call] = one({
    type: "tool_use",
    part: {
      tool: "read",
      state: { status: "error", input: { filePath: "/r/nope.txt" }, error: "File not found" },
    },
  });
  assert.deepEqual(call, {
    type: "worker.tool_call",
    time: TIME,
    tool: "read",
    kind: "read",
    target: "/r/nope.txt",
    status: "error",
    error: "File not found",
    // No time of its own: the bound of the line (here, when it was read).
    started: TIME,
  });
});

Deno.test("retryAfterFromText() reads second, minute and mixed waits", () => {
  assert.equal(retryAfterFromText("Please try again in 20s."), 20_000);
  assert.equal(retryAfterFromText("Please try again in 7m12s."), 432_000);
  assert.equal(retryAfterFromText("retry in 1.5s"), 1500);
  assert.equal(retryAfterFromText("try again in 250ms"), 250);
  assert.equal(retryAfterFromText("try again later"), undefined);
});

Deno.test("parseOpencodeLine() reads the model server helper's raw recordings without unknowns", async () => {
  for await (const entry of Deno.readDir(TESTDATA)) {
    if (!entry.name.startsWith("ms_") || !entry.name.endsWith(".jsonl")) continue;
    const state = opencodeBackend.newState();
    const text = await Deno.readTextFile(join(TESTDATA, entry.name));
    const events = text.split("\n").filter((l) => l !== "").flatMap((l) => one(l, state));
    assert.equal(ofType(events, "worker.unknown").length, 0, entry.name);
  }
});

Deno.test("parseOpencodeLine() keeps a tool part's own times only when they can be true", () => {
  const state = opencodeBackend.newState();
  // The step's first line was written after 1_000; the call's line was read at 5_000.
  parseOpencodeLine(
    JSON.stringify({ type: "step_start", part: {} }),
    state,
    readAt(1_500, 1_000, 100),
  );
  const call = (time: Record<string, number>) => {
    const [event] = parseOpencodeLine(
      JSON.stringify({
        type: "tool_use",
        part: {
          tool: "edit",
          state: { status: "completed", input: { filePath: "/r/a.ts" }, time },
        },
      }),
      state,
      readAt(5_000, 4_000, 100),
    );
    return event?.type === "worker.tool_call" ? [event.started, event.ended] : [];
  };
  assert.deepEqual(call({ start: 2_000, end: 2_100 }), [2_000, 2_100]);
  // A start after the line was read (another clock) or before the process started: the bound
  // of the step's first line (OpenCode prints a call only once it is done).
  assert.deepEqual(call({ start: 6_000, end: 6_100 }), [1_000, undefined]);
  assert.deepEqual(call({ start: 50, end: 2_100 }), [1_000, 2_100]);
  assert.deepEqual(call({}), [1_000, undefined]);
});
