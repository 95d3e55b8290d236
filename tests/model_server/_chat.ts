/**
 * Test helpers: a scenarios dir in a temp folder, and Chat Completions requests shaped like the
 * ones opencode 1.18.33 sends (system prompt with `Working directory:`, its tool list, extra
 * fields the server must ignore).
 */
import { join } from "node:path";
import { createModelServer, type ModelServer } from "../support/model_server/server.ts";

/** The tools opencode 1.18.33 offers by default, as captured from a real request. */
export const OPENCODE_TOOLS = [
  "bash",
  "edit",
  "glob",
  "grep",
  "read",
  "skill",
  "task",
  "todowrite",
  "webfetch",
  "write",
];

/** A handler over a temp scenarios dir, removed on dispose. */
export async function tempServer(
  scenarios: Record<string, unknown>,
  options: { logFile?: boolean; raw?: Record<string, string> } = {},
): Promise<
  { handler: ModelServer; dir: string; logFile: string | null } & AsyncDisposable
> {
  const dir = await Deno.makeTempDir({ prefix: "ms-test-" });
  for (const [name, scenario] of Object.entries(scenarios)) {
    await Deno.writeTextFile(join(dir, `${name}.json`), JSON.stringify(scenario));
  }
  for (const [name, text] of Object.entries(options.raw ?? {})) {
    await Deno.writeTextFile(join(dir, `${name}.json`), text);
  }
  const logFile = options.logFile ? join(dir, "log.jsonl.txt") : null;
  const handler = createModelServer({ scenariosDir: dir, ...(logFile ? { logFile } : {}) });
  return {
    handler,
    dir,
    logFile,
    async [Symbol.asyncDispose]() {
      handler.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** One assistant tool round as opencode replays it. */
function round(i: number): unknown[] {
  return [
    {
      role: "assistant",
      content: "",
      tool_calls: [{
        id: `call_${i}`,
        type: "function",
        function: { name: "read", arguments: "{}" },
      }],
    },
    { role: "tool", tool_call_id: `call_${i}`, content: "file text" },
  ];
}

/** Options of `chatBody`. */
export interface ChatBodyOptions {
  model?: string;
  /** User messages, oldest first (each earlier one followed by an assistant answer). */
  users?: string[];
  /** Tool rounds after the latest user message. */
  rounds?: number;
  tools?: string[];
  stream?: boolean;
  cwd?: string;
}

/** A Chat Completions request body like opencode's. */
export function chatBody(options: ChatBodyOptions = {}): Record<string, unknown> {
  const users = options.users ?? [`"do the task"`];
  const messages: unknown[] = [{
    role: "system",
    content: `You are opencode.\n<env>\n  Working directory: ${
      options.cwd ?? "/work/repo"
    }\n  Platform: linux\n</env>`,
  }];
  users.forEach((text, i) => {
    messages.push({ role: "user", content: text });
    if (i < users.length - 1) messages.push({ role: "assistant", content: "earlier answer" });
  });
  for (let i = 0; i < (options.rounds ?? 0); i++) messages.push(...round(i));
  const tools = options.tools ?? OPENCODE_TOOLS;
  return {
    model: options.model ?? "read-answer",
    max_tokens: 8192,
    messages,
    ...(tools.length > 0
      ? {
        tools: tools.map((name) => ({
          type: "function",
          function: { name, description: name, parameters: { type: "object" } },
        })),
        tool_choice: "auto",
      }
      : {}),
    stream: options.stream ?? true,
    stream_options: { include_usage: true },
    some_future_field: { ignored: true },
  };
}

/** A POST /v1/chat/completions request. */
export function chatRequest(body: unknown, init: RequestInit = {}): Request {
  return new Request("http://127.0.0.1/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    ...init,
  });
}

/** The JSON payloads of an SSE body (`data: ...` lines), without the `[DONE]` marker. */
export async function sseChunks(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

/** A streamed reply folded into text, tool calls, finish reason and usage. */
export interface Folded {
  text: string;
  calls: { name: string; args: Record<string, unknown> }[];
  finish: string | null;
  usage: Record<string, unknown> | null;
}

/** Folds SSE chunks of a Chat Completions stream. */
export function fold(chunks: Record<string, unknown>[]): Folded {
  const folded: Folded = { text: "", calls: [], finish: null, usage: null };
  for (const chunk of chunks) {
    if (chunk.usage) folded.usage = chunk.usage as Record<string, unknown>;
    const choices = chunk.choices as {
      delta: {
        content?: string;
        tool_calls?: { function: { name: string; arguments: string } }[];
      };
      finish_reason?: string;
    }[];
    for (const choice of choices) {
      folded.text += choice.delta.content ?? "";
      for (const call of choice.delta.tool_calls ?? []) {
        folded.calls.push({ name: call.function.name, args: JSON.parse(call.function.arguments) });
      }
      if (choice.finish_reason) folded.finish = choice.finish_reason;
    }
  }
  return folded;
}
