/**
 * The Anthropic Messages dialect (`POST /v1/messages`, claude sends `?beta=true`), spoken by
 * Claude Code 2.1.328. Scenario actions become calls of claude's own tools (`Read`, `Grep`,
 * `Glob`, `Write`, `Edit`, `Bash`, `WebFetch`) with absolute paths against the
 * `Primary working directory:` line claude states in its environment block. Claude refuses an
 * `Edit` (and a `Write` over an existing file) of a file it has not read, so those calls are
 * preceded by a `Read` of the file in the same model turn. Message ids are random: claude merges
 * assistant lines that share an id, even across a resumed session. A turn whose usage has
 * reasoning tokens starts with a `thinking` block (streamed as thinking and signature deltas), as
 * an extended-thinking model answers.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import type { Action, Conversation, Dialect, ErrorKind, ErrorReply, Reply } from "../dialect.ts";
import { ERROR_STATUS } from "../scenario.ts";
import { workerDirs } from "../worker_home.ts";

type Block = Record<string, unknown>;
type Message = { role?: unknown; content?: unknown };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function blocks(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function texts(content: unknown): string[] {
  return blocks(content).flatMap((b) =>
    b.type === "text" && typeof b.text === "string" ? [b.text] : []
  );
}

function isToolRound(message: Message): boolean {
  return message.role === "user" && blocks(message.content).some((b) => b.type === "tool_result");
}

const CWD_LINE = /^\s*-?\s*(?:Primary working directory|Working directory):\s*(\S.*?)\s*$/m;

/** The working directory claude states (system prompt or the env block of a user message). */
export function statedCwd(system: unknown, messages: Message[]): string | null {
  const candidates = [...texts(system), ...messages.flatMap((m) => texts(m.content))];
  for (const text of candidates) {
    const found = CWD_LINE.exec(text);
    if (found?.[1] !== undefined) return found[1];
  }
  return null;
}

/** The user's own words in a user message: text blocks that are not `<system-reminder>`s. */
function userText(message: Message | undefined): string {
  const all = texts(message?.content);
  const own = all.filter((text) => !text.trimStart().startsWith("<system-reminder>"));
  return (own.length > 0 ? own : all).join("\n");
}

/** Reads a Messages request body into a conversation. */
export function readMessages(body: unknown): Conversation {
  if (!isObject(body)) throw new Error("expected a JSON object");
  if (!Array.isArray(body.messages)) throw new Error(`expected "messages" to be a list`);
  const messages = body.messages.filter(isObject) as Message[];
  let latest = -1;
  let userTurns = 0;
  messages.forEach((message, i) => {
    if (message.role === "user" && !isToolRound(message)) {
      latest = i;
      userTurns++;
    }
  });
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
  return {
    model: typeof body.model === "string" ? body.model : "",
    toolsOffered: tools.flatMap((tool) => typeof tool.name === "string" ? [tool.name] : []),
    latestUser: latest < 0 ? "" : userText(messages[latest]),
    userTurns,
    toolRounds: messages.slice(latest + 1).filter(isToolRound).length,
    cwd: statedCwd(body.system, messages),
    stream: body.stream === true,
    toolResults: messages.slice(latest + 1).flatMap((m) =>
      m.role === "user"
        ? blocks(m.content).filter((b) => b.type === "tool_result").map((b) =>
          typeof b.content === "string" ? b.content : JSON.stringify(b.content)
        )
        : []
    ),
  };
}

/** One claude tool call: the tool name and its input. */
export interface ToolUse {
  name: string;
  input: Record<string, unknown>;
}

/** Options of `messagesCalls`. */
export interface CallOptions {
  /** True when a file exists (a `Write` over it needs a `Read` first). */
  exists?: (path: string) => boolean;
}

/**
 * Maps an action to claude's tool calls, paths absolute against `cwd`: usually one call; a
 * `Read` first for an edit, and for a write over an existing file.
 */
export function messagesCalls(
  action: Action,
  conversation: Pick<Conversation, "cwd" | "toolsOffered">,
  options: CallOptions = {},
): ToolUse[] {
  const { cwd } = conversation;
  const abs = (path: string) => (cwd === null || isAbsolute(path) ? path : resolve(cwd, path));
  const exists = options.exists ?? existsSync;
  if ("tool" in action) return [{ name: action.tool.name, input: action.tool.input }];
  if ("read" in action) return [{ name: "Read", input: { file_path: abs(action.read) } }];
  if ("list" in action) {
    return conversation.toolsOffered.includes("Bash")
      ? [{ name: "Bash", input: { command: `ls -la ${abs(action.list)}`, description: "List" } }]
      : [{ name: "Glob", input: { pattern: "*", path: abs(action.list) } }];
  }
  if ("grep" in action) {
    const grep = typeof action.grep === "string" ? { pattern: action.grep } : action.grep;
    return [{
      name: "Grep",
      input: grep.path === undefined
        ? { pattern: grep.pattern }
        : { pattern: grep.pattern, path: abs(grep.path) },
    }];
  }
  if ("write" in action) {
    const file_path = abs(action.write.path);
    const write = { name: "Write", input: { file_path, content: action.write.content } };
    return exists(file_path) ? [{ name: "Read", input: { file_path } }, write] : [write];
  }
  if ("edit" in action) {
    const file_path = abs(action.edit.path);
    return [{ name: "Read", input: { file_path } }, {
      name: "Edit",
      input: { file_path, old_string: action.edit.old, new_string: action.edit.new },
    }];
  }
  if ("shell" in action) {
    return [{ name: "Bash", input: { command: action.shell, description: "Run a command" } }];
  }
  return [{ name: "WebFetch", input: { url: action.web, prompt: "Summarise the page" } }];
}

function newId(prefix: string): string {
  return `${prefix}_scripted_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
}

/** The thinking text of a turn with reasoning tokens. */
const THINKING = "Working out what the scripted task asks for before answering.";

/** Builds the Messages response (SSE events or one JSON message) for a reply. */
export function messagesReply(reply: Reply): Response {
  const { conversation, usage } = reply;
  const id = newId("msg");
  const content: Block[] = [];
  const calls = reply.calls.flatMap((action) => messagesCalls(action, conversation));
  if (usage.reasoning > 0) {
    content.push({ type: "thinking", thinking: THINKING, signature: "c2NyaXB0ZWQ=" });
  }
  if (reply.text !== "" || calls.length === 0) content.push({ type: "text", text: reply.text });
  for (const call of calls) {
    content.push({ type: "tool_use", id: newId("toolu"), name: call.name, input: call.input });
  }
  const stopReason = calls.length > 0 ? "tool_use" : "end_turn";
  const fullUsage = {
    input_tokens: usage.input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cached,
    output_tokens: usage.output + usage.reasoning,
  };
  const base = {
    id,
    type: "message",
    role: "assistant",
    model: conversation.model,
    stop_sequence: null,
  };
  if (!conversation.stream) {
    return Response.json({ ...base, content, stop_reason: stopReason, usage: fullUsage });
  }
  const events: [string, unknown][] = [
    ["message_start", {
      type: "message_start",
      message: {
        ...base,
        content: [],
        stop_reason: null,
        usage: { ...fullUsage, output_tokens: Math.min(1, fullUsage.output_tokens) },
      },
    }],
    ["ping", { type: "ping" }],
  ];
  content.forEach((block, index) => {
    if (block.type === "thinking") {
      events.push(["content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      }]);
      events.push(["content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "thinking_delta", thinking: block.thinking },
      }]);
      events.push(["content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "signature_delta", signature: block.signature },
      }]);
    } else if (block.type === "text") {
      events.push(["content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      }]);
      events.push(["content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: block.text },
      }]);
    } else {
      events.push(["content_block_start", {
        type: "content_block_start",
        index,
        content_block: { ...block, input: {} },
      }]);
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) {
        events.push(["content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: part },
        }]);
      }
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push(["message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: fullUsage,
  }]);
  events.push(["message_stop", { type: "message_stop" }]);
  const text = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)
    .join("");
  return new Response(text, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** Anthropic's error type, usual message and usual status for each kind. */
const ERRORS: Record<ErrorKind, { type: string; status: number; message: (m: string) => string }> =
  {
    model_not_found: { type: "not_found_error", status: 404, message: (m) => `model: ${m}` },
    rate_limit: {
      type: "rate_limit_error",
      status: 429,
      message: () =>
        "This request would exceed the rate limit for your organization of 50 requests per minute. Please try again later.",
    },
    quota: {
      type: "invalid_request_error",
      status: 400,
      message: () =>
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
    },
    quota_daily: {
      type: "invalid_request_error",
      status: 400,
      message: () =>
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
    },
    auth: { type: "authentication_error", status: 401, message: () => "invalid x-api-key" },
    overloaded: { type: "overloaded_error", status: 529, message: () => "Overloaded" },
    server: { type: "api_error", status: 500, message: () => "Internal server error" },
  };

/**
 * Builds an error in Anthropic's shape (`{type:"error",error:{type,message}}`, `retry-after`).
 * Where the scenario left the core's default status, the status is Anthropic's own for the kind:
 * 400 for quota (Anthropic has no per-day quota: `quota_daily` is the same low-credit error) and
 * 529 for overloaded.
 */
export function messagesError(error: ErrorReply): Response {
  const shape = ERRORS[error.kind];
  const status = error.status === ERROR_STATUS[error.kind] ? shape.status : error.status;
  const message = error.message === "" ? shape.message(error.model) : error.message;
  const headers = new Headers({
    "content-type": "application/json",
    "request-id": newId("req"),
  });
  if (error.retryAfterS !== undefined) headers.set("retry-after", String(error.retryAfterS));
  const body = { type: "error", error: { type: shape.type, message } };
  return new Response(JSON.stringify(body), { status, headers });
}

/** The environment claude needs to talk to `baseUrl` quietly, its config and temp in `home`. */
export async function claudeEnv(home: string, baseUrl: string): Promise<Record<string, string>> {
  const configDir = join(home, ".claude");
  const tmp = workerDirs(home).TMPDIR;
  await mkdir(configDir, { recursive: true });
  await mkdir(tmp, { recursive: true });
  return {
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: "x",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_TMPDIR: tmp,
    CLAUDE_CODE_MAX_RETRIES: "1",
  };
}

/** The Anthropic Messages dialect (claude). */
export const messagesDialect: Dialect = {
  name: "claude",
  matches: (method, url) => method === "POST" && url.pathname === "/v1/messages",
  read: (body) => readMessages(body),
  reply: messagesReply,
  error: messagesError,
  workerEnv: (home, baseUrl) => claudeEnv(home, baseUrl),
};
