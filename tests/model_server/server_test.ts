import { assertEquals, assertIncludes } from "./_assert.ts";
import { chatBody, chatRequest, fold, sseChunks, tempServer } from "./_chat.ts";
import { UNTOOLED_TEXT } from "../support/model_server/server.ts";

const READ_ANSWER = {
  turns: [{ say: "Reading.", read: "src/a.ts" }, { answer: "It adds." }],
  followup: [{ answer: "Follow-up answer." }],
};

Deno.test("GET /v1/models lists the scenario names", async () => {
  await using server = await tempServer({ "read-answer": READ_ANSWER, other: READ_ANSWER });
  const response = await server.handler(new Request("http://127.0.0.1/v1/models"));
  const body = await response.json();
  assertEquals(body.data.map((model: { id: string }) => model.id), ["other", "read-answer"]);
});

Deno.test("a request that offers no tools gets the fixed text and does not advance the scenario", async () => {
  await using server = await tempServer({ "read-answer": READ_ANSWER });
  const untooled = fold(
    await sseChunks(await server.handler(chatRequest(chatBody({ tools: [] })))),
  );
  assertEquals([untooled.text, untooled.calls, untooled.finish], [UNTOOLED_TEXT, [], "stop"]);
  const first = fold(await sseChunks(await server.handler(chatRequest(chatBody()))));
  assertEquals(first.calls, [{ name: "read", args: { filePath: "/work/repo/src/a.ts" } }]);
  const log = server.handler.requests();
  assertEquals(log.map((entry) => [entry.played, entry.turn]), [["untooled", null], ["reply", 0]]);
});

Deno.test("the turn played is the number of tool rounds after the latest user message", async () => {
  await using server = await tempServer({ "read-answer": READ_ANSWER });
  const first = fold(await sseChunks(await server.handler(chatRequest(chatBody({ rounds: 0 })))));
  assertEquals([first.text, first.finish], ["Reading.", "tool_calls"]);
  const second = fold(await sseChunks(await server.handler(chatRequest(chatBody({ rounds: 1 })))));
  assertEquals([second.text, second.calls, second.finish], ["It adds.", [], "stop"]);
  const past = fold(await sseChunks(await server.handler(chatRequest(chatBody({ rounds: 7 })))));
  assertEquals(past.text, "It adds.");
});

Deno.test("a second user message plays the scenario's followup list", async () => {
  await using server = await tempServer({ "read-answer": READ_ANSWER });
  const body = chatBody({ users: [`"first"`, `"second"`] });
  const reply = fold(await sseChunks(await server.handler(chatRequest(body))));
  assertEquals(reply.text, "Follow-up answer.");
  assertEquals(server.handler.requests()[0]?.followup, true);
});

Deno.test("a [[scenario:NAME]] marker in the latest user message wins over the model id", async () => {
  await using server = await tempServer({
    "read-answer": READ_ANSWER,
    marked: { turns: [{ answer: "From the marker." }] },
  });
  const body = chatBody({ model: "read-answer", users: [`"please [[scenario:marked]]"`] });
  const reply = fold(await sseChunks(await server.handler(chatRequest(body))));
  assertEquals(reply.text, "From the marker.");
  assertEquals(server.handler.requests()[0]?.scenario, "marked");
});

Deno.test("actions become opencode's tools with its argument names and absolute paths", async () => {
  await using server = await tempServer({
    all: {
      turns: [{
        calls: [
          { read: "src/a.ts" },
          { read: "/etc/hostname" },
          { grep: "handleRequest" },
          { grep: { pattern: "a+b", path: "src" } },
          { list: "src" },
          { write: { path: "new.txt", content: "hello\n" } },
          { edit: { path: "src/a.ts", old: "a+b", new: "a + b" } },
          { shell: "git status" },
          { web: "http://127.0.0.1:9/page" },
        ],
      }],
    },
  });
  const body = chatBody({ model: "fake/all", cwd: "/home/u/proj" });
  const reply = fold(await sseChunks(await server.handler(chatRequest(body))));
  assertEquals(reply.calls, [
    { name: "read", args: { filePath: "/home/u/proj/src/a.ts" } },
    { name: "read", args: { filePath: "/etc/hostname" } },
    { name: "grep", args: { pattern: "handleRequest" } },
    { name: "grep", args: { pattern: "a+b", path: "/home/u/proj/src" } },
    { name: "read", args: { filePath: "/home/u/proj/src" } },
    { name: "write", args: { filePath: "/home/u/proj/new.txt", content: "hello\n" } },
    {
      name: "edit",
      args: { filePath: "/home/u/proj/src/a.ts", oldString: "a+b", newString: "a + b" },
    },
    { name: "bash", args: { command: "git status" } },
    { name: "webfetch", args: { url: "http://127.0.0.1:9/page", format: "text" } },
  ]);
  assertEquals(reply.finish, "tool_calls");
});

Deno.test("a tool the request did not offer is called anyway under its usual name", async () => {
  await using server = await tempServer({ sh: { turns: [{ shell: "rm -rf build" }] } });
  const body = chatBody({ model: "sh", tools: ["read", "grep", "glob"] });
  const reply = fold(await sseChunks(await server.handler(chatRequest(body))));
  assertEquals(reply.calls, [{ name: "bash", args: { command: "rm -rf build" } }]);
  assertEquals(server.handler.requests()[0]?.tools, ["read", "grep", "glob"]);
});

Deno.test("stream: false answers one chat.completion with tool calls and usage", async () => {
  await using server = await tempServer({ "read-answer": READ_ANSWER });
  const response = await server.handler(chatRequest(chatBody({ stream: false })));
  assertEquals(response.headers.get("content-type"), "application/json");
  const body = await response.json();
  assertEquals(body.object, "chat.completion");
  assertEquals(body.choices[0].finish_reason, "tool_calls");
  assertEquals(body.choices[0].message.content, "Reading.");
  assertEquals(body.choices[0].message.tool_calls[0].function, {
    name: "read",
    arguments: JSON.stringify({ filePath: "/work/repo/src/a.ts" }),
  });
  assertEquals(typeof body.usage.prompt_tokens, "number");
});

Deno.test("usage comes from the scenario, else from the sizes at 4 characters a token", async () => {
  await using server = await tempServer({
    counted: {
      turns: [{
        answer: "x".repeat(40),
        usage: { input: 100, output: 7, cached: 30, reasoning: 5 },
      }],
    },
    sized: { turns: [{ answer: "y".repeat(40) }] },
  });
  const counted = fold(
    await sseChunks(await server.handler(chatRequest(chatBody({ model: "counted" })))),
  );
  assertEquals(counted.usage, {
    prompt_tokens: 130,
    completion_tokens: 12,
    total_tokens: 142,
    prompt_tokens_details: { cached_tokens: 30 },
    completion_tokens_details: { reasoning_tokens: 5 },
  });
  const body = chatBody({ model: "sized" });
  const sized = fold(await sseChunks(await server.handler(chatRequest(body))));
  assertEquals(sized.usage?.completion_tokens, 10);
  assertEquals(sized.usage?.prompt_tokens, Math.ceil(JSON.stringify(body).length / 4));
});

Deno.test("a scenario name with no file is answered 404 model_not_found in OpenAI's shape", async () => {
  await using server = await tempServer({ "read-answer": READ_ANSWER });
  const response = await server.handler(chatRequest(chatBody({ model: "fake/nowhere" })));
  assertEquals(response.status, 404);
  const body = await response.json();
  assertEquals(body.error.code, "model_not_found");
  assertEquals(body.error.type, "invalid_request_error");
  assertIncludes(body.error.message, "`fake/nowhere` does not exist");
});

Deno.test("each error kind is answered in OpenAI's shape with its status", async () => {
  const kinds: [Record<string, unknown>, number, string | null, string][] = [
    [{ kind: "model_not_found", status: 404 }, 404, "model_not_found", "does not exist"],
    [{ kind: "rate_limit", status: 429 }, 429, "rate_limit_exceeded", "Rate limit reached"],
    [{ kind: "quota", status: 429 }, 429, "insufficient_quota", "You exceeded your current quota"],
    [{ kind: "quota_daily", status: 429 }, 429, "rate_limit_exceeded", "requests per day"],
    [{ kind: "auth", status: 401 }, 401, "invalid_api_key", "Incorrect API key"],
    [{ kind: "overloaded", status: 529 }, 529, null, "overloaded"],
    [{ kind: "overloaded", status: 503 }, 503, null, "overloaded"],
    [{ kind: "server", status: 500 }, 500, null, "had an error"],
    [{ kind: "server", status: 500, message: "Custom words" }, 500, null, "Custom words"],
  ];
  const scenarios = Object.fromEntries(
    kinds.map(([error], i) => [`e${i}`, { turns: [{ error }] }]),
  );
  await using server = await tempServer(scenarios);
  for (const [i, [, status, code, words]] of kinds.entries()) {
    const response = await server.handler(chatRequest(chatBody({ model: `fake/e${i}` })));
    assertEquals(response.status, status);
    const body = await response.json();
    assertEquals(body.error.code, code);
    assertIncludes(body.error.message, words);
    assertEquals(body.error.param, null);
  }
});

Deno.test("rate_limit with retry_after_s sends a retry-after header", async () => {
  await using server = await tempServer({
    slow: { turns: [{ error: { kind: "rate_limit", status: 429, retry_after_s: 3 } }] },
  });
  const response = await server.handler(chatRequest(chatBody({ model: "slow" })));
  await response.body?.cancel();
  assertEquals([response.status, response.headers.get("retry-after")], [429, "3"]);
});

Deno.test("error times: N fails the first N requests of that turn, then plays it", async () => {
  await using server = await tempServer({
    flaky: {
      turns: [
        { read: "a.txt" },
        { error: { kind: "server", status: 500, times: 2 }, answer: "Recovered." },
      ],
    },
  });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const response = await server.handler(chatRequest(chatBody({ model: "flaky", rounds: 1 })));
    statuses.push(response.status);
    if (i === 3) assertEquals(fold(await sseChunks(response)).text, "Recovered.");
    else await response.body?.cancel();
  }
  assertEquals(statuses, [500, 500, 200, 200]);
  const first = await server.handler(chatRequest(chatBody({ model: "flaky", rounds: 0 })));
  await first.body?.cancel();
  assertEquals(first.status, 200);
});

Deno.test("a scenario file that is not valid is answered 500 naming the fault", async () => {
  await using server = await tempServer({ bad: { turns: [{ raed: "x" }] } }, {
    raw: { broken: "{ not json" },
  });
  const bad = await server.handler(chatRequest(chatBody({ model: "bad" })));
  assertEquals(bad.status, 500);
  assertIncludes((await bad.json()).error.message, `scenario "bad" turns[0]: unknown key "raed"`);
  const broken = await server.handler(chatRequest(chatBody({ model: "broken" })));
  assertEquals(broken.status, 500);
  assertIncludes((await broken.json()).error.message, "is not JSON");
});

Deno.test("a body that is not a chat request is answered 400", async () => {
  await using server = await tempServer({});
  const response = await server.handler(
    new Request("http://127.0.0.1/v1/chat/completions", { method: "POST", body: "{nope" }),
  );
  assertEquals(response.status, 400);
  await response.body?.cancel();
  const unknown = await server.handler(new Request("http://127.0.0.1/v2/else", { method: "POST" }));
  assertEquals(unknown.status, 404);
  await unknown.body?.cancel();
});

Deno.test("hang opens the response and sends nothing until the client goes away", async () => {
  await using server = await tempServer({ stuck: { turns: [{ hang: true }] } });
  const response = await server.handler(chatRequest(chatBody({ model: "stuck" })));
  assertEquals([response.status, response.headers.get("content-type")], [200, "text/event-stream"]);
  const reader = response.body!.getReader();
  const read = reader.read();
  const marker = Symbol("pending");
  const first = await Promise.race([read, Promise.resolve().then(() => marker)]);
  assertEquals(first, marker);
  await reader.cancel();
  assertEquals((await read).done, true);
  assertEquals(server.handler.requests()[0]?.played, "hang");
});

Deno.test("close() ends hanging responses", async () => {
  await using server = await tempServer({ stuck: { turns: [{ hang: true }] } });
  const response = await server.handler(chatRequest(chatBody({ model: "stuck" })));
  const text = response.text();
  server.handler.close();
  assertEquals(await text, "");
});

Deno.test("delay_ms waits before answering", async () => {
  await using server = await tempServer({ late: { turns: [{ delay_ms: 60, answer: "Late." }] } });
  const started = performance.now();
  const reply = fold(
    await sseChunks(await server.handler(chatRequest(chatBody({ model: "late" })))),
  );
  assertEquals(reply.text, "Late.");
  assertEquals(performance.now() - started >= 55, true);
});

Deno.test("the log file gets one JSON line per request", async () => {
  await using server = await tempServer({ "read-answer": READ_ANSWER }, { logFile: true });
  const long = "x".repeat(3000);
  await (await server.handler(chatRequest(chatBody({ users: [long], tools: ["read"] })))).text();
  await (await server.handler(chatRequest(chatBody({ model: "fake/absent" })))).text();
  const lines = (await Deno.readTextFile(server.logFile!)).trim().split("\n").map((line) =>
    JSON.parse(line)
  );
  assertEquals(lines.length, 2);
  assertEquals(lines[0].user.length, 2000);
  assertEquals(
    [lines[0].dialect, lines[0].model, lines[0].scenario, lines[0].turn, lines[0].tools],
    ["opencode", "read-answer", "read-answer", 0, ["read"]],
  );
  assertEquals([lines[0].status, lines[1].status, lines[1].scenario], [200, 404, "absent"]);
});
