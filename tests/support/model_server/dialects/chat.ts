/**
 * The OpenAI Chat Completions dialect (`POST /v1/chat/completions`), spoken by opencode through
 * `@ai-sdk/openai-compatible`. Scenario actions become calls of opencode 1.18.33's own tools
 * (`read`, `grep`, `write`, `edit`, `bash`, `webfetch`; a directory listing is a `read` of the
 * directory) with absolute paths against the `Working directory:` line of its system prompt.
 * Qwen Code 0.24.4 speaks it too: its requests, told apart by the tools they offer, get its own
 * tools (_qwen.ts).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import type {
  Action,
  Conversation,
  Dialect,
  ErrorReply,
  Reply,
  Usage,
  WorkerEnvOptions,
} from "../dialect.ts";
import { workerDirs } from "../worker_home.ts";
import { openaiError } from "./_openai_error.ts";
import { isQwen, QWEN_CWD_LINE, qwenCall, qwenSettings } from "./_qwen.ts";
import { chatClientsEnv, copilotCall, isCopilot } from "./_chat_clients.ts";

/** The model every opencode config lists besides the scenario names. */
export const DEFAULT_MODEL = "scripted";
/** A listed model that has no scenario file, so opencode reaches the server and gets a 404. */
export const MISSING_MODEL = "missing";

type Message = { role?: unknown; content?: unknown; tool_calls?: unknown };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of a message's content (a string, or a list of parts of which text parts count). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (isObject(part) && typeof part.text === "string" ? part.text : ""))
    .join("");
}

/**
 * The working directory the CLI states: opencode and kilo in their system prompt (`Working
 * directory: /abs`), copilot there too (`* Current working directory: /abs`), Qwen Code in its
 * first user message.
 */
export function statedCwd(messages: Message[]): string | null {
  for (const message of messages) {
    const line = message.role === "system"
      ? /^[\s*]*(?:Current working|Working) directory:\s*(\S.*?)\s*$/m
      : message.role === "user"
      ? QWEN_CWD_LINE
      : null;
    const found = line?.exec(contentText(message.content));
    if (found?.[1] !== undefined) return found[1];
  }
  return null;
}

/** Reads a Chat Completions request body into a conversation. */
export function readChat(body: unknown): Conversation {
  if (!isObject(body)) throw new Error("expected a JSON object");
  if (!Array.isArray(body.messages)) throw new Error(`expected "messages" to be a list`);
  const messages = body.messages.filter(isObject) as Message[];
  let latest = -1;
  let userTurns = 0;
  messages.forEach((message, i) => {
    if (message.role === "user") {
      latest = i;
      userTurns++;
    }
  });
  const toolRounds = messages
    .slice(latest + 1)
    .filter((m) => m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0)
    .length;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return {
    model: typeof body.model === "string" ? body.model : "",
    toolsOffered: tools.flatMap((tool) =>
      isObject(tool) && isObject(tool.function) && typeof tool.function.name === "string"
        ? [tool.function.name]
        : []
    ),
    latestUser: latest < 0 ? "" : contentText(messages[latest]?.content),
    userTurns,
    toolRounds,
    cwd: statedCwd(messages),
    stream: body.stream === true,
    toolResults: messages.slice(latest + 1).filter((m) => m.role === "tool").map((m) =>
      typeof m.content === "string" ? m.content : JSON.stringify(m.content)
    ),
  };
}

/** One Chat Completions tool call: opencode's tool name and its arguments. */
export interface ChatCall {
  name: string;
  args: Record<string, unknown>;
}

/** Maps an action to the opencode tool and argument names, paths absolute against `cwd`. */
export function chatCall(action: Action, cwd: string | null, offered: string[]): ChatCall {
  const abs = (path: string) => (cwd === null || isAbsolute(path) ? path : resolve(cwd, path));
  if (isQwen(offered)) return qwenCall(action, abs, offered);
  if ("tool" in action) return { name: action.tool.name, args: action.tool.input };
  if (isCopilot(offered)) return copilotCall(action, abs);
  if ("read" in action) return { name: "read", args: { filePath: abs(action.read) } };
  if ("list" in action) {
    return offered.includes("list")
      ? { name: "list", args: { path: abs(action.list) } }
      : { name: "read", args: { filePath: abs(action.list) } };
  }
  if ("grep" in action) {
    const grep = typeof action.grep === "string" ? { pattern: action.grep } : action.grep;
    return {
      name: "grep",
      args: grep.path === undefined
        ? { pattern: grep.pattern }
        : { pattern: grep.pattern, path: abs(grep.path) },
    };
  }
  if ("write" in action) {
    return {
      name: "write",
      args: { filePath: abs(action.write.path), content: action.write.content },
    };
  }
  if ("edit" in action) {
    return {
      name: "edit",
      args: {
        filePath: abs(action.edit.path),
        oldString: action.edit.old,
        newString: action.edit.new,
      },
    };
  }
  if ("shell" in action) return { name: "bash", args: { command: action.shell } };
  return { name: "webfetch", args: { url: action.web, format: "text" } };
}

let sequence = 0;

function chatUsage(usage: Usage) {
  const prompt = usage.input + usage.cached;
  const completion = usage.output + usage.reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage.cached },
    completion_tokens_details: { reasoning_tokens: usage.reasoning },
  };
}

/** Builds the Chat Completions response (SSE chunks or one JSON body) for a reply. */
export function chatReply(reply: Reply): Response {
  const { conversation } = reply;
  const id = `chatcmpl-scripted-${++sequence}`;
  const created = 0;
  const model = conversation.model;
  const calls = reply.calls.map((action, i) => {
    const call = chatCall(action, conversation.cwd, conversation.toolsOffered);
    return {
      index: i,
      id: `call_${sequence}_${i}`,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    };
  });
  const finish = calls.length > 0 ? "tool_calls" : "stop";
  const usage = chatUsage(reply.usage);
  if (!conversation.stream) {
    const message = {
      role: "assistant",
      content: reply.text === "" && calls.length > 0 ? null : reply.text,
      ...(calls.length > 0 ? { tool_calls: calls.map(({ index: _, ...call }) => call) } : {}),
    };
    return Response.json({
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage,
    });
  }
  const base = { id, object: "chat.completion.chunk", created, model };
  const chunks: unknown[] = [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
  ];
  if (reply.text !== "") {
    chunks.push({ ...base, choices: [{ index: 0, delta: { content: reply.text } }] });
  }
  for (const call of calls) {
    chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [call] } }] });
  }
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
  chunks.push({ ...base, choices: [], usage });
  const text = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") +
    "data: [DONE]\n\n";
  return new Response(text, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** Builds an error in OpenAI's shape (`{error:{message,type,param,code}}`, `retry-after`). */
export function chatError(error: ErrorReply): Response {
  return openaiError(error, { apiKey: "x" });
}

/** The opencode config pointing provider `fake` at `baseUrl`, listing `models`. */
export function opencodeConfig(baseUrl: string, models: string[]): Record<string, unknown> {
  const listed = [...new Set([DEFAULT_MODEL, MISSING_MODEL, ...models])].sort();
  return {
    $schema: "https://opencode.ai/config.json",
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Scripted model server",
        options: { baseURL: `${baseUrl}/v1`, apiKey: "x" },
        models: Object.fromEntries(
          listed.map((name) => [name, { name, limit: { context: 128_000, output: 8_192 } }]),
        ),
      },
    },
    model: `fake/${DEFAULT_MODEL}`,
    small_model: `fake/${DEFAULT_MODEL}`,
    autoupdate: false,
    share: "disabled",
  };
}

/** The Chat Completions dialect (opencode, Qwen Code). */
export const chatDialect: Dialect = {
  name: "opencode",
  matches: (method, url) => method === "POST" && url.pathname === "/v1/chat/completions",
  read: (body) => readChat(body),
  reply: chatReply,
  error: chatError,
  async workerEnv(home: string, baseUrl: string, options?: WorkerEnvOptions) {
    const dir = join(workerDirs(home).XDG_CONFIG_HOME, "opencode");
    await mkdir(dir, { recursive: true });
    const config = opencodeConfig(baseUrl, options?.scenarios ?? []);
    await writeFile(join(dir, "opencode.json"), JSON.stringify(config, null, 2) + "\n");
    const qwen = join(home, ".qwen");
    await mkdir(qwen, { recursive: true });
    await writeFile(join(qwen, "settings.json"), JSON.stringify(qwenSettings(baseUrl), null, 2));
    return {
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_SHARE: "1",
      ...await chatClientsEnv(home, baseUrl, config),
    };
  },
};
