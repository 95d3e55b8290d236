/**
 * The Gemini API dialect (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse` and
 * `:generateContent`), spoken by gemini-cli 0.61.0 through `@google/genai`. The model is in the
 * URL. Scenario actions become calls of gemini-cli's own tools (`read_file`, `grep_search`,
 * `list_directory`, `write_file`, `replace`, `run_shell_command`, `web_fetch`) with absolute paths
 * against the workspace directory its first user message states. Tool results come back as
 * `functionResponse` parts of a `user` content: those are tool rounds, not user turns. Errors take
 * Google's `{error:{code,message,status,details}}` shape, with `QuotaFailure` quota ids that tell a
 * per-minute limit from a per-day quota and `RetryInfo` delays, the way the CLI reads them.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import type {
  Action,
  Conversation,
  Dialect,
  ErrorKind,
  ErrorReply,
  Reply,
  Usage,
} from "../dialect.ts";

type Part = Record<string, unknown>;
type Content = { role?: unknown; parts?: unknown };

const PATH = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function partsOf(content: Content): Part[] {
  return Array.isArray(content.parts) ? content.parts.filter(isObject) : [];
}

function isToolResult(content: Content): boolean {
  return partsOf(content).some((part) => isObject(part.functionResponse));
}

/** A user content that carries text and no tool results: a turn of the person, not a tool round. */
function isUserTurn(content: Content): boolean {
  return content.role === "user" && !isToolResult(content) &&
    partsOf(content).some((part) => typeof part.text === "string");
}

/** The text of a user turn without the CLI's `<session_context>` preamble part. */
function userText(content: Content): string {
  return partsOf(content)
    .map((part) => (typeof part.text === "string" ? part.text : ""))
    .filter((text) => !text.trimStart().startsWith("<session_context>"))
    .join("\n");
}

/** The workspace directory gemini-cli states in its session context (`Workspace Directories:`). */
export function statedCwd(contents: Content[]): string | null {
  for (const content of contents) {
    for (const part of partsOf(content)) {
      if (typeof part.text !== "string") continue;
      const found = /Workspace Directories:\**\s*\n\s*-\s*(\S.*?)\s*$/m.exec(part.text);
      if (found?.[1] !== undefined) return found[1];
    }
  }
  return null;
}

/** What a reply needs to know about the request beyond the conversation. */
interface RequestInfo {
  /** The JSON schema of a structured-output request (`responseJsonSchema`), if any. */
  schema: unknown;
  json: boolean;
}

const requestInfo = new WeakMap<Conversation, RequestInfo>();

/** Reads a `generateContent` request body and its URL into a conversation. */
export function readGemini(body: unknown, url: URL): Conversation {
  if (!isObject(body)) throw new Error("expected a JSON object");
  if (!Array.isArray(body.contents)) throw new Error(`expected "contents" to be a list`);
  const found = PATH.exec(url.pathname);
  if (found === null) throw new Error(`not a Gemini generate path: ${url.pathname}`);
  const contents = body.contents.filter(isObject) as Content[];
  let latest = -1;
  let userTurns = 0;
  contents.forEach((content, i) => {
    if (isUserTurn(content)) {
      latest = i;
      userTurns++;
    }
  });
  const toolRounds = contents.slice(latest + 1).filter(isToolResult).length;
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
  const toolsOffered = tools.flatMap((tool) =>
    Array.isArray(tool.functionDeclarations)
      ? tool.functionDeclarations.flatMap((d) =>
        isObject(d) && typeof d.name === "string" ? [d.name] : []
      )
      : []
  );
  const latestContent = contents[latest];
  const conversation: Conversation = {
    model: decodeURIComponent(found[1] ?? ""),
    toolsOffered,
    latestUser: latestContent === undefined ? "" : userText(latestContent),
    userTurns,
    toolRounds,
    cwd: statedCwd(contents),
    stream: found[2] === "streamGenerateContent",
    toolResults: contents.slice(latest + 1).flatMap((content) =>
      partsOf(content).flatMap((part) =>
        isObject(part.functionResponse) ? [JSON.stringify(part.functionResponse)] : []
      )
    ),
  };
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  requestInfo.set(conversation, {
    schema: config.responseJsonSchema ?? config.responseSchema,
    json: config.responseMimeType === "application/json",
  });
  return conversation;
}

/** One gemini-cli function call: the tool name and its arguments. */
export interface GeminiCall {
  name: string;
  args: Record<string, unknown>;
}

/** Maps an action to gemini-cli 0.61.0's tool and argument names, paths absolute against `cwd`. */
export function geminiCall(action: Action, cwd: string | null): GeminiCall {
  const abs = (path: string) => (cwd === null || isAbsolute(path) ? path : resolve(cwd, path));
  if ("tool" in action) return { name: action.tool.name, args: action.tool.input };
  if ("read" in action) return { name: "read_file", args: { file_path: abs(action.read) } };
  if ("list" in action) return { name: "list_directory", args: { dir_path: abs(action.list) } };
  if ("grep" in action) {
    const grep = typeof action.grep === "string" ? { pattern: action.grep } : action.grep;
    return {
      name: "grep_search",
      args: grep.path === undefined
        ? { pattern: grep.pattern }
        : { pattern: grep.pattern, dir_path: abs(grep.path) },
    };
  }
  if ("write" in action) {
    return {
      name: "write_file",
      args: { file_path: abs(action.write.path), content: action.write.content },
    };
  }
  if ("edit" in action) {
    return {
      name: "replace",
      args: {
        file_path: abs(action.edit.path),
        instruction: `Replace the text in ${action.edit.path}`,
        old_string: action.edit.old,
        new_string: action.edit.new,
      },
    };
  }
  if ("shell" in action) {
    return {
      name: "run_shell_command",
      args: { command: action.shell, description: "Scripted command" },
    };
  }
  return { name: "web_fetch", args: { prompt: `Fetch ${action.web} and summarise it` } };
}

/** Google's usage block: `promptTokenCount` includes the cached part. */
export function usageMetadata(usage: Usage): Record<string, number> {
  const prompt = usage.input + usage.cached;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: usage.output,
    ...(usage.cached > 0 ? { cachedContentTokenCount: usage.cached } : {}),
    ...(usage.reasoning > 0 ? { thoughtsTokenCount: usage.reasoning } : {}),
    totalTokenCount: prompt + usage.output + usage.reasoning,
  };
}

/** A value that fits a structured-output schema (next-speaker checks and the like). */
function fitSchema(schema: unknown, text: string): unknown {
  if (!isObject(schema)) return text;
  const type = typeof schema.type === "string" ? schema.type.toLowerCase() : "";
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return schema.enum.includes("user") ? "user" : schema.enum[0];
  }
  if (type === "object" || isObject(schema.properties)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    return Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, fitSchema(value, text)]),
    );
  }
  if (type === "array") return [];
  if (type === "boolean") return false;
  if (type === "number" || type === "integer") return 0;
  return text;
}

/** Builds the response (SSE chunks or one JSON body) for a reply. */
export function geminiReply(reply: Reply): Response {
  const { conversation } = reply;
  const info = requestInfo.get(conversation);
  let text = reply.text;
  if (reply.calls.length === 0 && info?.json === true) {
    text = JSON.stringify(fitSchema(info.schema, reply.text));
  }
  const calls = reply.calls.map((action) => geminiCall(action, conversation.cwd));
  const parts: Part[] = [
    ...(text === "" ? [] : [{ text }]),
    ...calls.map((call) => ({ functionCall: call })),
  ];
  const usage = usageMetadata(reply.usage);
  const last = { index: 0, finishReason: "STOP" };
  if (!conversation.stream) {
    return Response.json({
      candidates: [{ ...last, content: { role: "model", parts } }],
      usageMetadata: usage,
      modelVersion: conversation.model,
    });
  }
  // Text first, then the calls with the finish reason and usage, as the API streams them.
  const chunks: unknown[] = [];
  const textParts = parts.filter((part) => "text" in part);
  const callParts = parts.filter((part) => "functionCall" in part);
  if (textParts.length > 0 && callParts.length > 0) {
    chunks.push({ candidates: [{ index: 0, content: { role: "model", parts: textParts } }] });
    chunks.push({
      candidates: [{ ...last, content: { role: "model", parts: callParts } }],
      usageMetadata: usage,
      modelVersion: conversation.model,
    });
  } else {
    chunks.push({
      candidates: [{ ...last, content: { role: "model", parts } }],
      usageMetadata: usage,
      modelVersion: conversation.model,
    });
  }
  const body = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join("");
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

const QUOTA_FAILURE = "type.googleapis.com/google.rpc.QuotaFailure";
const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const HELP = "type.googleapis.com/google.rpc.Help";
const RATE_DOCS = "https://ai.google.dev/gemini-api/docs/rate-limits";

function quotaDetails(model: string, quotaId: string, metric: string, limit: number) {
  return {
    "@type": QUOTA_FAILURE,
    violations: [{
      quotaMetric: `generativelanguage.googleapis.com/${metric}`,
      quotaId,
      quotaDimensions: { location: "global", model },
      quotaValue: String(limit),
    }],
  };
}

function quotaMessage(model: string, metric: string, limit: number, retryS: number | undefined) {
  return "You exceeded your current quota, please check your plan and billing details. For more " +
    `information on this error, head to: ${RATE_DOCS}. To monitor your current usage, head to: ` +
    "https://ai.dev/usage?tab=rate-limit. \n* Quota exceeded for metric: " +
    `generativelanguage.googleapis.com/${metric}, limit: ${limit}, model: ${model}` +
    (retryS === undefined ? "" : `\nPlease retry in ${retryS}s.`);
}

interface GoogleError {
  status: string;
  message: string;
  details: unknown[];
}

function googleError(kind: ErrorKind, model: string, retryS: number | undefined): GoogleError {
  const retry = retryS === undefined ? [] : [{ "@type": RETRY_INFO, retryDelay: `${retryS}s` }];
  const help = { "@type": HELP, links: [{ description: "Learn more", url: RATE_DOCS }] };
  switch (kind) {
    case "model_not_found":
      return {
        status: "NOT_FOUND",
        message: `models/${model} is not found for API version v1beta, or is not supported for ` +
          "generateContent. Call ListModels to see the list of available models and their " +
          "supported methods.",
        details: [],
      };
    case "rate_limit": {
      const metric = "generate_content_free_tier_requests";
      const id = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier";
      return {
        status: "RESOURCE_EXHAUSTED",
        message: quotaMessage(model, metric, 10, retryS),
        details: [help, quotaDetails(model, id, metric, 10), ...retry],
      };
    }
    case "quota_daily": {
      const metric = "generate_content_free_tier_requests";
      const id = "GenerateRequestsPerDayPerProjectPerModel-FreeTier";
      return {
        status: "RESOURCE_EXHAUSTED",
        message: quotaMessage(model, metric, 250, retryS),
        details: [help, quotaDetails(model, id, metric, 250), ...retry],
      };
    }
    case "quota": {
      // A project with no quota for the model at all ("limit: 0"): the CLI treats it as terminal.
      const metric = "generate_content_free_tier_input_token_count";
      const id = "GenerateContentInputTokensPerModelPerMinute-FreeTier";
      return {
        status: "RESOURCE_EXHAUSTED",
        message: quotaMessage(model, metric, 0, retryS),
        details: [help, quotaDetails(model, id, metric, 0), ...retry],
      };
    }
    case "auth":
      return {
        status: "INVALID_ARGUMENT",
        message: "API key not valid. Please pass a valid API key.",
        details: [{
          "@type": ERROR_INFO,
          reason: "API_KEY_INVALID",
          domain: "googleapis.com",
          metadata: { service: "generativelanguage.googleapis.com" },
        }],
      };
    case "overloaded":
      return {
        status: "UNAVAILABLE",
        message: "The model is overloaded. Please try again later.",
        details: retry,
      };
    case "server":
      return {
        status: "INTERNAL",
        message: "An internal error has occurred. Please retry or report in " +
          "https://developers.generativeai.google/guide/troubleshooting",
        details: [],
      };
  }
}

/** The HTTP status Google uses for a kind when the scenario keeps the core's default. */
function googleStatus(kind: ErrorKind, status: number): number {
  // Google answers a bad API key with 400 INVALID_ARGUMENT, not 401.
  return kind === "auth" && status === 401 ? 400 : status;
}

/** Builds an error in Google's shape (`{error:{code,message,status,details}}`). */
export function geminiError(error: ErrorReply): Response {
  const shape = googleError(error.kind, error.model, error.retryAfterS);
  const code = googleStatus(error.kind, error.status);
  const body = {
    error: {
      code,
      message: error.message === "" ? shape.message : error.message,
      status: shape.status,
      ...(shape.details.length > 0 ? { details: shape.details } : {}),
    },
  };
  const headers = new Headers({ "content-type": "application/json; charset=UTF-8" });
  if (error.retryAfterS !== undefined) headers.set("retry-after", String(error.retryAfterS));
  return new Response(JSON.stringify(body), { status: code, headers });
}

/** The private `settings.json` gemini-cli needs: API-key auth, no telemetry, one attempt. */
export function geminiSettings(): Record<string, unknown> {
  return {
    security: { auth: { selectedType: "gemini-api-key" } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { maxAttempts: 1, enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
}

/** The Gemini API dialect (gemini-cli). */
export const geminiDialect: Dialect = {
  name: "gemini",
  matches: (method, url) => method === "POST" && PATH.test(url.pathname),
  read: readGemini,
  reply: geminiReply,
  error: geminiError,
  async workerEnv(home: string, baseUrl: string) {
    const dir = join(home, ".gemini");
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "settings.json"),
      JSON.stringify(geminiSettings(), null, 2) + "\n",
    );
    return {
      GEMINI_API_KEY: "x",
      GOOGLE_GEMINI_BASE_URL: baseUrl,
      GEMINI_CLI_HOME: home,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      GEMINI_CLI_NO_RELAUNCH: "true",
    };
  },
};
