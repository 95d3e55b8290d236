import assert from "node:assert/strict";
import {
  messagesCalls,
  messagesDialect,
  messagesError,
  messagesReply,
  readMessages,
} from "../support/model_server/dialects/messages.ts";
import type { Conversation } from "../support/model_server/dialect.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  assert.deepStrictEqual(actual, expected, message);

const ENV_BLOCK = "<system-reminder>\n# Environment\n - Primary working directory: /work/repo\n" +
  " - Is a git repository: true\n</system-reminder>";

/** A request shaped like claude 2.1.328's (trimmed), after one tool round. */
function request(extra: Record<string, unknown> = {}) {
  return {
    model: "fake/read-answer",
    system: [{ type: "text", text: "x-anthropic-billing-header: cc_version=2.1.328;" }],
    tools: [{ name: "Read", input_schema: {} }, { name: "Bash", input_schema: {} }],
    metadata: { user_id: "{}" },
    thinking: { type: "enabled", budget_tokens: 31999 },
    context_management: { edits: [] },
    max_tokens: 32000,
    stream: true,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: ENV_BLOCK },
          { type: "text", text: "Look at a.txt [[scenario:other]]\n" },
        ],
      },
      {
        role: "assistant",
        content: [{
          type: "tool_use",
          id: "t1",
          name: "Read",
          input: { file_path: "/work/repo/a.txt" },
        }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: "1\thello" }],
      },
    ],
    ...extra,
  };
}

function conversation(fields: Partial<Conversation> = {}): Conversation {
  return {
    model: "m",
    toolsOffered: ["Read", "Edit", "Bash"],
    latestUser: "",
    userTurns: 1,
    toolRounds: 0,
    cwd: "/work/repo",
    stream: true,
    ...fields,
  };
}

async function sse(
  response: Response,
): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const text = await response.text();
  return text.trim().split("\n\n").map((chunk) => {
    const [eventLine, dataLine] = chunk.split("\n");
    return { event: eventLine!.slice("event: ".length), data: JSON.parse(dataLine!.slice(6)) };
  });
}

Deno.test("messagesDialect serves POST /v1/messages, with or without ?beta=true", () => {
  assert(messagesDialect.matches("POST", new URL("http://h/v1/messages?beta=true")));
  assert(!messagesDialect.matches("GET", new URL("http://h/v1/messages")));
  assert(!messagesDialect.matches("POST", new URL("http://h/v1/chat/completions")));
});

Deno.test("readMessages() counts tool rounds, skips reminders and finds the cwd", () => {
  assertEquals(readMessages(request()), {
    model: "fake/read-answer",
    toolsOffered: ["Read", "Bash"],
    latestUser: "Look at a.txt [[scenario:other]]\n",
    userTurns: 1,
    toolRounds: 1,
    cwd: "/work/repo",
    stream: true,
    toolResults: ["1\thello"],
  });
});

Deno.test("readMessages() starts over at a follow-up user message", () => {
  const body = request();
  body.messages.push(
    { role: "assistant", content: [{ type: "text", text: "done" }] } as never,
    { role: "user", content: "And now b.txt" } as never,
  );
  const read = readMessages(body);
  assertEquals([read.userTurns, read.toolRounds, read.latestUser], [2, 0, "And now b.txt"]);
});

Deno.test("readMessages() refuses a body without messages", () => {
  assert.throws(() => readMessages({ model: "m" }), /messages/);
});

Deno.test("messagesCalls() maps actions to claude's tools with absolute paths", () => {
  const conv = conversation();
  const none = { exists: () => false };
  assertEquals(messagesCalls({ read: "src/a.ts" }, conv), [
    { name: "Read", input: { file_path: "/work/repo/src/a.ts" } },
  ]);
  assertEquals(messagesCalls({ grep: { pattern: "x", path: "src" } }, conv), [
    { name: "Grep", input: { pattern: "x", path: "/work/repo/src" } },
  ]);
  assertEquals(messagesCalls({ edit: { path: "a", old: "1", new: "2" } }, conv), [
    { name: "Read", input: { file_path: "/work/repo/a" } },
    { name: "Edit", input: { file_path: "/work/repo/a", old_string: "1", new_string: "2" } },
  ]);
  assertEquals(messagesCalls({ write: { path: "n.txt", content: "c" } }, conv, none), [
    { name: "Write", input: { file_path: "/work/repo/n.txt", content: "c" } },
  ]);
  assertEquals(
    messagesCalls({ write: { path: "n.txt", content: "c" } }, conv, { exists: () => true })
      .map((c) => c.name),
    ["Read", "Write"],
  );
  assertEquals(messagesCalls({ shell: "ls" }, conv)[0]?.name, "Bash");
  assertEquals(messagesCalls({ list: "." }, conv)[0]?.input.command, "ls -la /work/repo");
  assertEquals(
    messagesCalls({ list: "." }, conversation({ toolsOffered: ["Read"] }))[0]?.name,
    "Glob",
  );
  assertEquals(messagesCalls({ web: "https://x.test" }, conv)[0], {
    name: "WebFetch",
    input: { url: "https://x.test", prompt: "Summarise the page" },
  });
});

Deno.test("messagesReply() streams text and tool_use blocks with input_json_delta", async () => {
  const response = messagesReply({
    text: "Reading.",
    calls: [{ read: "a.txt" }],
    usage: { input: 100, output: 20, cached: 30, reasoning: 0 },
    conversation: conversation(),
  });
  assertEquals(response.headers.get("content-type"), "text/event-stream");
  const events = await sse(response);
  assertEquals(events.map((e) => e.event), [
    "message_start",
    "ping",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  const json = events.filter((e) =>
    (e.data.delta as { type?: string })?.type === "input_json_delta"
  )
    .map((e) => (e.data.delta as { partial_json: string }).partial_json).join("");
  assertEquals(JSON.parse(json), { file_path: "/work/repo/a.txt" });
  const delta = events.find((e) => e.event === "message_delta")!.data;
  assertEquals(delta.delta, { stop_reason: "tool_use", stop_sequence: null });
  assertEquals(delta.usage, {
    input_tokens: 100,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 30,
    output_tokens: 20,
  });
});

Deno.test("messagesReply() starts a turn with reasoning tokens with a streamed thinking block", async () => {
  const events = await sse(messagesReply({
    text: "Done.",
    calls: [],
    usage: { input: 100, output: 20, cached: 0, reasoning: 5 },
    conversation: conversation(),
  }));
  const deltas = events.filter((e) => e.event === "content_block_delta")
    .map((e) => (e.data.delta as { type: string }).type);
  assertEquals(deltas, ["thinking_delta", "signature_delta", "text_delta"]);
  const delta = events.find((e) => e.event === "message_delta")!.data;
  assertEquals((delta.usage as { output_tokens: number }).output_tokens, 25);
});

Deno.test("messagesReply() gives a fresh message id to every reply", async () => {
  const reply = { text: "hi", calls: [], usage: { input: 1, output: 1, cached: 0, reasoning: 0 } };
  const a = await messagesReply({ ...reply, conversation: conversation({ stream: false }) }).json();
  const b = await messagesReply({ ...reply, conversation: conversation({ stream: false }) }).json();
  assert(a.id !== b.id);
  assertEquals(a.content, [{ type: "text", text: "hi" }]);
  assertEquals(a.stop_reason, "end_turn");
});

Deno.test("messagesError() answers in Anthropic's shape and statuses", async () => {
  const cases = [
    ["model_not_found", 404, 404, "not_found_error"],
    ["rate_limit", 429, 429, "rate_limit_error"],
    ["quota", 429, 400, "invalid_request_error"],
    ["auth", 401, 401, "authentication_error"],
    ["overloaded", 503, 529, "overloaded_error"],
    ["server", 500, 500, "api_error"],
    ["rate_limit", 503, 503, "rate_limit_error"],
  ] as const;
  for (const [kind, asked, status, type] of cases) {
    const response = messagesError({ status: asked, kind, message: "", model: "m" });
    assertEquals(response.status, status, kind);
    const body = await response.json();
    assertEquals([body.type, body.error.type], ["error", type], kind);
    assert(body.error.message.length > 0);
  }
  const quota = await messagesError({ status: 429, kind: "quota", message: "", model: "m" }).json();
  assert(quota.error.message.includes("credit balance is too low"));
  const limited = messagesError({
    status: 429,
    kind: "rate_limit",
    message: "slow down",
    retryAfterS: 3,
    model: "m",
  });
  assertEquals(limited.headers.get("retry-after"), "3");
  assertEquals((await limited.json()).error.message, "slow down");
});

Deno.test("messagesDialect.workerEnv() points claude at the server, quiet and fast-failing", async () => {
  const home = await Deno.makeTempDir({ prefix: "pitroom-messages-" });
  try {
    const env = await messagesDialect.workerEnv(home, "http://127.0.0.1:9", { scenarios: [] });
    assertEquals(env.ANTHROPIC_BASE_URL, "http://127.0.0.1:9");
    assertEquals(env.CLAUDE_CODE_MAX_RETRIES, "1");
    assertEquals(env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, "1");
    assertEquals(env.CLAUDE_CONFIG_DIR, `${home}/.claude`);
    assert((await Deno.stat(env.CLAUDE_CONFIG_DIR!)).isDirectory);
    assert((await Deno.stat(env.CLAUDE_CODE_TMPDIR!)).isDirectory);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
