/**
 * The gemini dialect of the scripted model server, through the server's handler (no port): what
 * it reads from gemini-cli 0.61.0's request shapes, the SSE and JSON replies, the gemini tool
 * calls, Google's error shapes and the private settings. The real CLI against it is in
 * tests/workers/gemini/e2e_test.ts.
 */
import { join } from "node:path";
import { assertEquals, assertIncludes } from "./_assert.ts";
import { tempServer } from "./_chat.ts";
import { geminiDialect, readGemini } from "../support/model_server/dialects/gemini.ts";
import { UNTOOLED_TEXT } from "../support/model_server/server.ts";

const CWD = "/work/repo";
const TOOLS = [
  "list_directory",
  "read_file",
  "grep_search",
  "glob",
  "replace",
  "write_file",
  "run_shell_command",
  "web_fetch",
];

const SCENARIO = {
  turns: [
    { say: "Reading.", read: "src/a.ts" },
    {
      calls: [
        { grep: { pattern: "add", path: "src" } },
        { list: "src" },
        { edit: { path: "src/a.ts", old: "a+b", new: "a + b" } },
        { write: { path: "b.txt", content: "b" } },
        { shell: "deno test" },
        { web: "https://example.com/" },
      ],
    },
    { answer: "Done.", usage: { input: 100, output: 20, cached: 30, reasoning: 5 } },
  ],
  followup: [{ answer: "Follow-up." }],
};

/** The session context gemini-cli puts in front of the first prompt (shape as 0.61.0 sends it). */
function sessionContext(cwd: string): string {
  return "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n" +
    "My operating system is: linux\n- **Workspace Directories:**\n  - " + cwd +
    "\n- **Directory Structure:**\n\n" + cwd + "/\n└───a.txt\n</session_context>";
}

/** A gemini-cli request body: the prompt, `rounds` tool rounds, then `followups` more prompts. */
function body(
  options: { rounds?: number; tools?: string[]; prompt?: string; followups?: string[] } = {},
) {
  const contents: unknown[] = [{
    role: "user",
    parts: [{ text: sessionContext(CWD) }, { text: options.prompt ?? "Do it" }],
  }];
  for (let i = 0; i < (options.rounds ?? 0); i++) {
    contents.push({
      role: "model",
      parts: [{ functionCall: { name: "read_file", args: { file_path: `${CWD}/x` } } }],
    });
    contents.push({
      role: "user",
      parts: [{ functionResponse: { name: "read_file", response: { output: "text" } } }],
    });
  }
  for (const text of options.followups ?? []) {
    contents.push({ role: "model", parts: [{ text: "Done." }] });
    contents.push({ role: "user", parts: [{ text }] });
  }
  const tools = options.tools ?? TOOLS;
  return {
    contents,
    systemInstruction: { parts: [{ text: "You are Gemini CLI" }] },
    tools: tools.length === 0
      ? []
      : [{ functionDeclarations: tools.map((name) => ({ name, parametersJsonSchema: {} })) }],
    generationConfig: { temperature: 1, thinkingConfig: { includeThoughts: true } },
  };
}

function request(model: string, payload: unknown, method = "streamGenerateContent"): Request {
  const query = method === "streamGenerateContent" ? "?alt=sse" : "";
  return new Request(`http://127.0.0.1/v1beta/models/${model}:${method}${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "x" },
    body: JSON.stringify(payload),
  });
}

type Chunk = {
  candidates?: {
    content?: { parts?: Record<string, unknown>[] };
    finishReason?: string;
  }[];
  usageMetadata?: Record<string, number>;
};

async function chunks(response: Response): Promise<Chunk[]> {
  assertEquals(response.headers.get("content-type"), "text/event-stream");
  const text = await response.text();
  return text.split(/\r?\n\r?\n/).filter((block) => block.startsWith("data: ")).map((block) =>
    JSON.parse(block.slice(6)) as Chunk
  );
}

function partsOf(list: Chunk[]): Record<string, unknown>[] {
  return list.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
}

Deno.test("readGemini() reads the model from the URL, the workspace as cwd and tool rounds", () => {
  const url = new URL(
    "http://127.0.0.1/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
  );
  const conversation = readGemini(body({ rounds: 2, followups: [] }), url);
  assertEquals(conversation, {
    model: "gemini-2.5-pro",
    toolsOffered: TOOLS,
    latestUser: "Do it",
    userTurns: 1,
    toolRounds: 2,
    cwd: CWD,
    stream: true,
    toolResults: [
      '{"name":"read_file","response":{"output":"text"}}',
      '{"name":"read_file","response":{"output":"text"}}',
    ],
  });
  const later = readGemini(body({ rounds: 1, followups: ["And now?"] }), url);
  assertEquals([later.latestUser, later.userTurns, later.toolRounds], ["And now?", 2, 0]);
});

Deno.test("the gemini dialect streams text then gemini-cli tool calls with absolute paths", async () => {
  await using server = await tempServer({ edit: SCENARIO });
  const first = await chunks(await server.handler(request("edit", body())));
  assertEquals(partsOf(first), [
    { text: "Reading." },
    { functionCall: { name: "read_file", args: { file_path: `${CWD}/src/a.ts` } } },
  ]);
  assertEquals(first.at(-1)?.candidates?.[0]?.finishReason, "STOP");

  const second = await chunks(await server.handler(request("edit", body({ rounds: 1 }))));
  assertEquals(partsOf(second).map((part) => part.functionCall), [
    { name: "grep_search", args: { pattern: "add", dir_path: `${CWD}/src` } },
    { name: "list_directory", args: { dir_path: `${CWD}/src` } },
    {
      name: "replace",
      args: {
        file_path: `${CWD}/src/a.ts`,
        instruction: "Replace the text in src/a.ts",
        old_string: "a+b",
        new_string: "a + b",
      },
    },
    { name: "write_file", args: { file_path: `${CWD}/b.txt`, content: "b" } },
    { name: "run_shell_command", args: { command: "deno test", description: "Scripted command" } },
    { name: "web_fetch", args: { prompt: "Fetch https://example.com/ and summarise it" } },
  ]);

  const last = await chunks(await server.handler(request("edit", body({ rounds: 2 }))));
  assertEquals(partsOf(last), [{ text: "Done." }]);
  assertEquals(last.at(-1)?.usageMetadata, {
    promptTokenCount: 130,
    candidatesTokenCount: 20,
    cachedContentTokenCount: 30,
    thoughtsTokenCount: 5,
    totalTokenCount: 155,
  });

  const followup = await chunks(
    await server.handler(request("edit", body({ followups: ["More?"] }))),
  );
  assertEquals(partsOf(followup), [{ text: "Follow-up." }]);
});

Deno.test("the gemini dialect answers tool-less generateContent calls, as JSON when a schema asks", async () => {
  await using server = await tempServer({ edit: SCENARIO });
  const plain = await server.handler(request("edit", body({ tools: [] }), "generateContent"));
  const text = await plain.json();
  assertEquals(text.candidates[0].content.parts, [{ text: UNTOOLED_TEXT }]);

  const structured = {
    ...body({ tools: [] }),
    generationConfig: {
      responseMimeType: "application/json",
      responseJsonSchema: {
        type: "object",
        properties: {
          reasoning: { type: "string" },
          next_speaker: { type: "string", enum: ["user", "model"] },
        },
      },
    },
  };
  const json = await (await server.handler(request("edit", structured, "generateContent"))).json();
  assertEquals(JSON.parse(json.candidates[0].content.parts[0].text), {
    reasoning: UNTOOLED_TEXT,
    next_speaker: "user",
  });
  assertEquals(server.handler.requests().map((entry) => entry.played), ["untooled", "untooled"]);
});

async function errorOf(kind: string, status: number, extra: Record<string, unknown> = {}) {
  await using server = await tempServer({
    fail: { turns: [{ error: { status, kind, ...extra } }] },
  });
  const response = await server.handler(request("fail", body()));
  return { status: response.status, headers: response.headers, body: await response.json() };
}

Deno.test("the gemini dialect answers an unknown model with Google's 404 NOT_FOUND", async () => {
  await using server = await tempServer({});
  const response = await server.handler(request("gemini-9", body()));
  assertEquals(response.status, 404);
  const { error } = await response.json();
  assertEquals([error.code, error.status], [404, "NOT_FOUND"]);
  assertIncludes(error.message, "models/gemini-9 is not found");
});

Deno.test("the gemini dialect tells a per-minute limit from a per-day quota by quota id", async () => {
  const minute = await errorOf("rate_limit", 429, { retry_after_s: 30 });
  assertEquals([minute.status, minute.body.error.status], [429, "RESOURCE_EXHAUSTED"]);
  const details = minute.body.error.details as Record<string, unknown>[];
  const quota = details.find((d) => String(d["@type"]).endsWith("QuotaFailure")) as {
    violations: { quotaId: string }[];
  };
  assertEquals(
    quota.violations[0]?.quotaId,
    "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
  );
  assertEquals(details.find((d) => String(d["@type"]).endsWith("RetryInfo"))?.retryDelay, "30s");
  assertEquals(minute.headers.get("retry-after"), "30");

  const day = await errorOf("quota_daily", 429);
  const dayQuota = (day.body.error.details as { violations?: { quotaId: string }[] }[])
    .find((d) => d.violations !== undefined);
  assertEquals(
    dayQuota?.violations?.[0]?.quotaId,
    "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
  );

  const none = await errorOf("quota", 429);
  assertIncludes(none.body.error.message, "limit: 0,");
});

Deno.test("the gemini dialect answers auth as 400 API_KEY_INVALID and overload as 503 UNAVAILABLE", async () => {
  const auth = await errorOf("auth", 401);
  assertEquals([auth.status, auth.body.error.status], [400, "INVALID_ARGUMENT"]);
  assertEquals(auth.body.error.details[0].reason, "API_KEY_INVALID");
  const busy = await errorOf("overloaded", 503);
  assertEquals([busy.status, busy.body.error.status], [503, "UNAVAILABLE"]);
});

Deno.test("workerEnv() writes private gemini settings and returns the env gemini needs", async () => {
  const home = await Deno.makeTempDir({ prefix: "ms-gemini-home-" });
  try {
    const env = await geminiDialect.workerEnv(home, "http://127.0.0.1:9999");
    assertEquals(env, {
      GEMINI_API_KEY: "x",
      GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9999",
      GEMINI_CLI_HOME: home,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      GEMINI_CLI_NO_RELAUNCH: "true",
    });
    const settings = JSON.parse(await Deno.readTextFile(join(home, ".gemini", "settings.json")));
    assertEquals(settings.security.auth.selectedType, "gemini-api-key");
    assertEquals(settings.general.maxAttempts, 1);
    assertEquals([settings.telemetry.enabled, settings.privacy.usageStatisticsEnabled], [
      false,
      false,
    ]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
