import assert from "node:assert/strict";
import { isEvent } from "../../../src/events/mod.ts";
import { claudeBackend } from "../../../src/workers/claude/mod.ts";
import { retryHintMs } from "../../../src/workers/claude/parse.ts";
import { ofType, parseLines, recordedEvents, recordedLines, retryDelays } from "./_recorded.ts";
import { readAt } from "../../support/line_time.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  assert.deepStrictEqual(actual, expected, message);

const RECORDED = [
  "read_answer",
  "edit_in_place",
  "read_refusals",
  "write_denials",
  "model_not_found",
  "rate_limited",
  "overloaded",
  "quota",
  "auth",
  "server_error",
  "resume_first",
  "resume",
  "thinking",
];

function resultUsage(lines: string[]) {
  const result = JSON.parse(lines.at(-1) ?? "{}");
  const u = result.usage;
  return {
    input: u.input_tokens + u.cache_creation_input_tokens,
    cached: u.cache_read_input_tokens,
    output: u.output_tokens - u.output_tokens_details.thinking_tokens,
    cost: result.total_cost_usd,
  };
}

Deno.test("parseClaudeLine() makes valid events of every recorded line and no unknowns", async () => {
  for (const name of RECORDED) {
    const events = await recordedEvents(name);
    for (const e of events) assert(isEvent(e), `${name}: ${JSON.stringify(e)}`);
    assertEquals(ofType(events, "worker.unknown"), [], name);
    assertEquals(ofType(events, "worker.session").length, 1, name);
  }
});

Deno.test("parseClaudeLine() maps a read run to steps, tool calls and the answer", async () => {
  const events = await recordedEvents("read_answer");
  assertEquals(events[0]?.type, "worker.session");
  assertEquals(ofType(events, "worker.step").map((e) => e.index), [0, 1, 2, 3]);
  assertEquals(ofType(events, "worker.text")[0]?.text, "Looking at the file.");
  assertEquals(
    ofType(events, "worker.tool_call").map((e) => [e.tool, e.kind, e.target, e.status]),
    [
      ["Read", "read", "a.txt", "ok"],
      ["Grep", "search", "hello", "ok"],
      ["Bash", "shell", "ls -la", "ok"],
    ],
  );
  assertEquals(ofType(events, "worker.answer").map((e) => e.text), ["a.txt says hello world."]);
  assertEquals(events.at(-1)?.type, "worker.answer");
});

Deno.test("parseClaudeLine() tokens add up to the result's usage and carry its cost", async () => {
  for (const name of ["read_answer", "edit_in_place", "write_denials"]) {
    const lines = await recordedLines(name);
    const tokens = ofType(parseLines(lines).events, "worker.tokens");
    const sum = (key: "input" | "output" | "cached") =>
      tokens.reduce((total, e) => total + e[key], 0);
    const usage = resultUsage(lines);
    assertEquals({ input: sum("input"), output: sum("output"), cached: sum("cached") }, {
      input: usage.input,
      output: usage.output,
      cached: usage.cached,
    }, name);
    // read_answer's last call reports the scenario's 40 cached tokens.
    if (name === "read_answer") assert(usage.cached >= 40, `cached ${usage.cached}`);
    // One event per model call, then the remainder with the run's cost.
    assert(tokens.length > 1, name);
    assertEquals(tokens.at(-1)?.cost, usage.cost, name);
  }
});

Deno.test("parseClaudeLine() reports edits and writes with paths relative to the cwd", async () => {
  const events = await recordedEvents("edit_in_place");
  assertEquals(
    ofType(events, "worker.tool_call").map((e) => [e.kind, e.target, e.status]),
    [["read", "a.txt", "ok"], ["edit", "a.txt", "ok"], ["write", "notes/new.txt", "ok"]],
  );
});

Deno.test("parseClaudeLine() marks permission denials and removed tools as denied", async () => {
  const events = await recordedEvents("read_refusals");
  assertEquals(
    ofType(events, "worker.tool_call").map((e) => [e.tool, e.status]),
    [["Edit", "denied"], ["Read", "ok"], ["Bash", "denied"], ["WebFetch", "denied"], [
      "Bash",
      "ok",
    ]],
  );
  const denied = ofType(events, "worker.denied");
  assertEquals(denied.map((e) => e.tool), ["Edit", "Bash", "WebFetch"]);
  assert(denied[1]?.message.includes("don't ask mode"));
  const shellDenied = ofType(events, "worker.tool_call")[2];
  assertEquals(shellDenied?.target, "echo sneaky > b.txt");
  assert(shellDenied?.error?.startsWith("Permission to use Bash"));
});

Deno.test("parseClaudeLine() reports the write profile's denied commands", async () => {
  const events = await recordedEvents("write_denials");
  assertEquals(
    ofType(events, "worker.tool_call").map((e) => [e.target, e.status]),
    [["echo made > made.txt", "ok"], ["git commit -am sneaky", "denied"], [
      "rm -rf sub",
      "denied",
    ]],
  );
  assertEquals(
    ofType(events, "worker.denied").map((e) => e.message),
    [
      "Permission to use Bash with command git commit -am sneaky has been denied.",
      "Permission to use Bash with command rm -rf sub has been denied.",
    ],
  );
});

Deno.test("parseClaudeLine() turns an API error result into one final error, no answer", async () => {
  const expected: Record<string, [number, string]> = {
    model_not_found: [404, "not_found_error"],
    rate_limited: [429, "rate_limit_error"],
    overloaded: [529, "overloaded_error"],
    quota: [400, "invalid_request_error"],
    auth: [401, "authentication_error"],
    server_error: [500, "api_error"],
  };
  for (const [name, [status, type]] of Object.entries(expected)) {
    const events = await recordedEvents(name);
    const final = ofType(events, "worker.error").filter((e) => e.retryable !== true);
    assertEquals(final.map((e) => [e.status, e.name]), [[status, type]], name);
    assertEquals(ofType(events, "worker.answer"), [], name);
    assertEquals(ofType(events, "worker.text"), [], name);
  }
});

Deno.test("parseClaudeLine() reports api_retry lines as retryable errors", async () => {
  const events = await recordedEvents("rate_limited");
  const retries = ofType(events, "worker.error").filter((e) => e.retryable === true);
  assertEquals(retries.map((e) => [e.status, e.name]), [[429, "rate_limit"]]);
  // The scenario's retry-after is 1 s, longer than claude's own first backoff (500 ms plus
  // jitter): the recorded delay is the server's hint.
  const [delay] = await retryDelays("rate_limited");
  assert(delay !== undefined && delay >= 1000, `delay ${delay}`);
  assertEquals(retries[0]?.retryAfterMs, delay);
  const overloaded = ofType(await recordedEvents("overloaded"), "worker.error");
  assertEquals(overloaded.find((e) => e.retryable === true)?.retryAfterMs, undefined);
});

Deno.test("parseClaudeLine() makes unknown lines explicit", () => {
  const state = claudeBackend.newState();
  assertEquals(claudeBackend.parse("not json", state, readAt(5)), [
    { type: "worker.unknown", time: 5, raw: "not json" },
  ]);
  const odd = JSON.stringify({ type: "system", subtype: "brand_new", session_id: "s" });
  assertEquals(claudeBackend.parse(odd, state, readAt(6)), [{
    type: "worker.unknown",
    time: 6,
    raw: odd,
  }]);
  const other = JSON.stringify({ type: "stream_event", event: {} });
  assertEquals(claudeBackend.parse(other, state, readAt(7))[0]?.type, "worker.unknown");
});

Deno.test("parseClaudeLine() reports a tool call only when its result arrives, with when it was announced", () => {
  const state = claudeBackend.newState();
  const use = JSON.stringify({
    type: "assistant",
    message: {
      id: "m1",
      content: [{ type: "tool_use", id: "t1", name: "WebFetch", input: { url: "https://x.test" } }],
      usage: { input_tokens: 3, output_tokens: 1 },
    },
  });
  assertEquals(
    claudeBackend.parse(use, state, readAt(1)).map((e) => e.type),
    ["worker.step", "worker.tokens"],
  );
  const result = JSON.stringify({
    type: "user",
    message: {
      content: [{ type: "tool_result", tool_use_id: "t1", is_error: true, content: "boom" }],
    },
  });
  assertEquals(claudeBackend.parse(result, state, readAt(2)), [{
    type: "worker.tool_call",
    time: 2,
    tool: "WebFetch",
    kind: "web",
    target: "https://x.test",
    status: "error",
    error: "boom",
    started: 1,
  }]);
});

/** An Edit announced on a line stamped `useAt` and done on one stamped `resultAt`. */
function editLines(useAt: string | undefined, resultAt: string | undefined) {
  const use = JSON.stringify({
    type: "assistant",
    message: {
      id: "m1",
      content: [{ type: "tool_use", id: "t1", name: "Edit", input: { file_path: "src/app.ts" } }],
    },
    ...(useAt === undefined ? {} : { timestamp: useAt }),
  });
  const result = JSON.stringify({
    type: "user",
    message: { content: [{ type: "tool_result", tool_use_id: "t1", content: "updated" }] },
    ...(resultAt === undefined ? {} : { timestamp: resultAt }),
  });
  return { use, result };
}

/** The call an Edit's two lines make when both are read late, in one chunk. */
function lateEdit(useAt: string | undefined, resultAt: string | undefined) {
  const { use, result } = editLines(useAt, resultAt);
  const state = claudeBackend.newState();
  // The process started at START; the chunk holding both lines was read at 623, and the read
  // before it was asked for at 500: both lines were written after 500.
  const at = readAt(START + 623, START + 500, START);
  claudeBackend.parse(use, state, at);
  const [call] = ofType(claudeBackend.parse(result, state, at), "worker.tool_call");
  return call;
}

const START = Date.parse("2026-12-05T09:56:46.000Z");

Deno.test("parseClaudeLine() starts a call at its assistant line's timestamp, not when the line was read, and ends it at its result's", () => {
  const call = lateEdit("2026-12-05T09:56:46.588Z", "2026-12-05T09:56:46.607Z");
  assertEquals([call?.target, call?.started, call?.ended], [
    "src/app.ts",
    START + 588,
    START + 607,
  ]);
  assertEquals(call?.time, START + 623);
});

Deno.test("parseClaudeLine() falls back to the line's bound for a timestamp it cannot believe", () => {
  // Later than the line was read (a clock ahead of Pitroom's).
  assertEquals(lateEdit("2026-12-05T09:56:46.700Z", undefined)?.started, START + 500);
  // Before the process started (a clock behind), or no timestamp, or no zone in it.
  assertEquals(lateEdit("2026-12-05T09:50:00.000Z", undefined)?.started, START + 500);
  assertEquals(lateEdit(undefined, undefined)?.started, START + 500);
  assertEquals(lateEdit("2026-12-05T09:56:46.588", undefined)?.started, START + 500);
  assertEquals(lateEdit("yesterday", "soon")?.started, START + 500);
  // A result stamped before its call started, or after it was read, states no end.
  const early = lateEdit("2026-12-05T09:56:46.588Z", "2026-12-05T09:56:46.550Z");
  assertEquals([early?.started, early?.ended], [START + 588, undefined]);
  const late = lateEdit("2026-12-05T09:56:46.588Z", "2026-12-05T09:56:46.900Z");
  assertEquals([late?.started, late?.ended], [START + 588, undefined]);
});

Deno.test("retryHintMs() reads retry hints in messages", () => {
  assertEquals(retryHintMs("Please retry in 2s"), 2000);
  assertEquals(retryHintMs("try again in 20 seconds"), 20_000);
  assertEquals(retryHintMs("Retry after 1.5 min"), 90_000);
  assertEquals(retryHintMs("try again later"), null);
});

Deno.test("parseClaudeLine() charges a resumed run its own cost, not the session's", async () => {
  const cost = async (name: string) =>
    ofType(await recordedEvents(name), "worker.tokens").reduce((sum, e) => sum + (e.cost ?? 0), 0);
  const first = JSON.parse((await recordedLines("resume_first")).at(-1) ?? "{}");
  const second = JSON.parse((await recordedLines("resume")).at(-1) ?? "{}");
  // The follow-up's total_cost_usd is the whole session's: both runs.
  assert(second.total_cost_usd > first.total_cost_usd);
  const own = second.total_cost_usd - first.total_cost_usd;
  assert(Math.abs((await cost("resume_first")) - first.total_cost_usd) < 1e-12);
  assert(Math.abs((await cost("resume")) - own) < 1e-9, `resume cost ${await cost("resume")}`);
});

Deno.test("parseClaudeLine() counts system/thinking_tokens as reasoning out of the output", async () => {
  const lines = await recordedLines("thinking");
  const events = parseLines(lines).events;
  assertEquals(ofType(events, "worker.unknown"), []);
  const estimates = lines.map((line) => JSON.parse(line))
    .filter((line) => line.type === "system" && line.subtype === "thinking_tokens")
    .reduce((sum, line) => sum + line.estimated_tokens_delta, 0);
  assert(estimates > 0);
  const tokens = ofType(events, "worker.tokens");
  const sum = (key: "input" | "output" | "reasoning") =>
    tokens.reduce((total, e) => total + e[key], 0);
  const usage = JSON.parse(lines.at(-1) ?? "{}").usage;
  assertEquals(sum("reasoning"), estimates);
  assertEquals(sum("output") + sum("reasoning"), usage.output_tokens);
  assertEquals(sum("input"), usage.input_tokens + usage.cache_creation_input_tokens);
  assertEquals(ofType(events, "worker.reasoning").length, 2);
});

Deno.test("describeTool() gives tools named like Object.prototype keys the kind other", () => {
  for (const name of ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"]) {
    const { events } = parseLines([
      JSON.stringify({
        type: "assistant",
        message: { id: "m1", content: [{ type: "tool_use", id: name, name, input: {} }] },
      }),
      JSON.stringify({
        type: "user",
        message: { content: [{ type: "tool_result", tool_use_id: name, content: "ok" }] },
      }),
    ]);
    for (const e of events) assert(isEvent(e), `${name}: ${JSON.stringify(e)}`);
    assertEquals(ofType(events, "worker.tool_call").map((e) => [e.tool, e.kind]), [[
      name,
      "other",
    ]]);
  }
});
