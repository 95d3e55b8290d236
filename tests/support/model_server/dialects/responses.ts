/**
 * The codex dialect: OpenAI's Responses API (`POST /v1/responses`, SSE), as codex 0.169.0 speaks
 * it.
 *
 * Reading a request: the conversation is the `input` list. User messages that codex injects
 * itself (`<environment_context>`, AGENTS.md and other tagged blocks) are not user turns; the
 * working directory is the `<cwd>` of the last `<environment_context>`. Tool rounds are counted
 * from the call ids this dialect mints (`call_<response>_<n>`): one round per distinct response
 * that made calls after the latest user message, so parallel calls count once.
 *
 * Mapping actions to codex's tools (codex offers `exec_command{cmd}` and a freeform
 * `apply_patch`; older model families offer `shell{command: argv}` or a function `apply_patch`):
 * read -> `cat -- PATH`, grep -> `grep -rn -e PATTERN -- PATH`, list -> `ls -la -- PATH`, shell ->
 * the command as given; write and edit -> an `apply_patch` envelope computed from the file on
 * disk under the request's cwd; web -> a hosted `web_search_call` (open_page) when codex offers
 * `web_search`, else `curl -sS URL` through the shell, which is how a model without the web tool
 * would try it (and what codex's sandbox then refuses: the connect fails with EPERM). A tool
 * codex did not offer is called anyway under its usual name, so denials come out exactly as codex
 * reports them. A hosted search needs no round trip, so codex ends its turn after a reply that
 * holds only hosted calls: in a codex scenario put the answer in the same turn as `say`
 * (`{"web": URL, "say": "answer"}`); the search is sent before the text.
 *
 * Naming scenarios: `workerEnv` writes a model catalogue (`model_catalog_json`) that declares the
 * slug `fake`; codex matches a model id by its longest known prefix, so `-m fake/NAME` plays
 * scenario `NAME` with the full tool set (apply_patch included) and no "model metadata not found"
 * warning. A `[[scenario:NAME]]` marker in the prompt wins over the model id, as everywhere.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import type { Action, Conversation, Dialect, ErrorReply, Reply, Usage } from "../dialect.ts";
import { openaiError } from "./_openai_error.ts";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Texts of a message's content (a string or a list of `input_text`/`output_text` parts). */
function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => isObject(part) && typeof part.text === "string" ? part.text : "")
    .join("");
}

const INJECTED =
  /^\s*(<(environment_context|user_instructions|turn_aborted|user_shell_command|skill|subagent_notification)\b|# AGENTS\.md instructions)/;
const CWD = /<cwd>([^<]*)<\/cwd>/g;
const CALL_ID = /^call_([0-9a-f]+)_\d+$/;
const CALL_TYPES = new Set(["function_call", "custom_tool_call", "local_shell_call"]);
/** Conversations whose `apply_patch` is a JSON function rather than a freeform tool. */
const functionPatch = new WeakSet<Conversation>();

/** The namespaces a conversation offers (`mcp__pitroom`: codex groups an MCP server's tools). */
const namespaces = new WeakMap<Conversation, Set<string>>();

function toolName(tool: unknown): string | null {
  if (!isObject(tool)) return null;
  if (typeof tool.name === "string") return tool.name;
  return typeof tool.type === "string" ? tool.type : null;
}

/** The names a tool entry offers: a namespace's tools as `<namespace>__<tool>`. */
function toolNames(tool: unknown): string[] {
  if (isObject(tool) && tool.type === "namespace" && typeof tool.name === "string") {
    const inner = Array.isArray(tool.tools) ? tool.tools : [];
    return inner.map(toolName).filter((n): n is string => n !== null).map((n) =>
      `${tool.name}__${n}`
    );
  }
  const name = toolName(tool);
  return name === null ? [] : [name];
}

/** Reads a Responses request body into a conversation. */
export function readResponsesRequest(body: unknown): Conversation {
  if (!isObject(body)) throw new TypeError("request body is not an object");
  if (typeof body.model !== "string") throw new TypeError("request has no model");
  const items: unknown[] = typeof body.input === "string"
    ? [{ type: "message", role: "user", content: body.input }]
    : Array.isArray(body.input)
    ? body.input
    : [];
  let latestUser = "";
  let latestAt = -1;
  let userTurns = 0;
  let cwd: string | null = null;
  items.forEach((item, index) => {
    if (!isObject(item) || item.role === undefined) return;
    const text = messageText(item.content);
    for (const match of text.matchAll(CWD)) cwd = match[1]?.trim() || cwd;
    if (item.role !== "user" || INJECTED.test(text)) return;
    latestUser = text;
    latestAt = index;
    userTurns += 1;
  });
  const rounds = new Set<string>();
  items.slice(latestAt + 1).forEach((item, index) => {
    if (!isObject(item) || typeof item.type !== "string" || !CALL_TYPES.has(item.type)) return;
    const id = typeof item.call_id === "string" ? item.call_id : "";
    rounds.add(CALL_ID.exec(id)?.[1] ?? `other-${index}`);
  });
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const conversation: Conversation = {
    model: body.model,
    toolsOffered: tools.flatMap(toolNames),
    latestUser,
    userTurns,
    toolRounds: rounds.size,
    cwd,
    stream: body.stream !== false,
    toolResults: items.slice(latestAt + 1).flatMap((item) =>
      isObject(item) && typeof item.type === "string" && item.type.endsWith("_call_output")
        ? [typeof item.output === "string" ? item.output : JSON.stringify(item.output)]
        : []
    ),
  };
  namespaces.set(
    conversation,
    new Set(tools.filter((t) => isObject(t) && t.type === "namespace").map((t) => String(t.name))),
  );
  const patchTool = tools.find((tool) => toolName(tool) === "apply_patch");
  if (isObject(patchTool) && patchTool.type === "function") functionPatch.add(conversation);
  return conversation;
}

/** Quotes `value` for a POSIX shell. */
function quote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

const CONTEXT_LINES = 3;

/** An `apply_patch` envelope that writes `content` to `path` (added, or replaced whole). */
export function writePatch(path: string, content: string, current: string | null): string {
  const added = splitLines(content).map((line) => `+${line}`);
  if (current === null) {
    return ["*** Begin Patch", `*** Add File: ${path}`, ...added, "*** End Patch", ""].join("\n");
  }
  const removed = splitLines(current).map((line) => `-${line}`);
  return [
    "*** Begin Patch",
    `*** Update File: ${path}`,
    "@@",
    ...removed,
    ...added,
    "*** End Patch",
    "",
  ]
    .join("\n");
}

/**
 * An `apply_patch` envelope that replaces the first `old` in `current` with `new`: the lines that
 * hold `old` go out, the same lines with the replacement come in, with a few lines of context.
 * When `old` is not there the patch still removes it, so codex reports the failed match.
 */
export function editPatch(path: string, current: string, old: string, replacement: string): string {
  const head = ["*** Begin Patch", `*** Update File: ${path}`];
  const at = current.indexOf(old);
  if (at < 0) {
    const removed = splitLines(old).map((line) => `-${line}`);
    const added = splitLines(replacement).map((line) => `+${line}`);
    return [...head, "@@", ...removed, ...added, "*** End Patch", ""].join("\n");
  }
  const lines = current.split("\n");
  const lineOf = (offset: number) => current.slice(0, offset).split("\n").length - 1;
  const first = lineOf(at);
  const last = lineOf(at + Math.max(old.length, 1) - 1);
  const lineStart = current.lastIndexOf("\n", at - 1) + 1;
  const oldBlock = lines.slice(first, last + 1);
  const before = current.slice(lineStart, at);
  const after = oldBlock.join("\n").slice(before.length + old.length);
  const newBlock = (before + replacement + after).split("\n");
  const context = lines.slice(Math.max(0, first - CONTEXT_LINES), first).map((line) => ` ${line}`);
  return [
    ...head,
    "@@",
    ...context,
    ...oldBlock.map((line) => `-${line}`),
    ...newBlock.map((line) => `+${line}`),
    "*** End Patch",
    "",
  ].join("\n");
}

function readIfThere(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

/** The shell command a read/grep/list/shell/web action becomes. */
export function actionCommand(action: Action): string | null {
  if ("read" in action) return `cat -- ${quote(action.read)}`;
  if ("grep" in action) {
    const { pattern, path } = typeof action.grep === "string"
      ? { pattern: action.grep, path: undefined }
      : action.grep;
    return `grep -rn -e ${quote(pattern)} -- ${quote(path ?? ".")}`;
  }
  if ("list" in action) return `ls -la -- ${quote(action.list)}`;
  if ("shell" in action) return action.shell;
  if ("web" in action) return `curl -sS ${quote(action.web)}`;
  return null;
}

function shellCall(command: string, offered: string[], callId: string, id: string): Json {
  if (!offered.includes("exec_command") && offered.includes("shell")) {
    return {
      type: "function_call",
      id,
      call_id: callId,
      name: "shell",
      arguments: JSON.stringify({ command: ["bash", "-lc", command] }),
      status: "completed",
    };
  }
  return {
    type: "function_call",
    id,
    call_id: callId,
    name: "exec_command",
    arguments: JSON.stringify({ cmd: command }),
    status: "completed",
  };
}

function patchCall(patch: string, conversation: Conversation, callId: string, id: string): Json {
  // A function-style apply_patch takes `{input}`; the freeform one (and a denied one) the text.
  if (functionPatch.has(conversation)) {
    return {
      type: "function_call",
      id,
      call_id: callId,
      name: "apply_patch",
      arguments: JSON.stringify({ input: patch }),
      status: "completed",
    };
  }
  return {
    type: "custom_tool_call",
    id,
    call_id: callId,
    name: "apply_patch",
    input: patch,
    status: "completed",
  };
}

/** The output item a scenario action becomes for codex. */
export function actionItem(action: Action, conversation: Conversation, callId: string): Json {
  const offered = conversation.toolsOffered;
  const id = `fc_${callId.slice(5)}`;
  const base = conversation.cwd ?? Deno.cwd();
  const onDisk = (path: string) => readIfThere(isAbsolute(path) ? path : resolve(base, path));
  if ("tool" in action) {
    // A tool of an offered namespace is called by its own name within the namespace.
    const name = action.tool.name;
    const space = [...(namespaces.get(conversation) ?? [])].find((ns) =>
      name.startsWith(`${ns}__`)
    );
    return {
      type: "function_call",
      id,
      call_id: callId,
      ...(space === undefined
        ? { name }
        : { namespace: space, name: name.slice(space.length + 2) }),
      arguments: JSON.stringify(action.tool.input),
      status: "completed",
    };
  }
  if ("write" in action) {
    const patch = writePatch(action.write.path, action.write.content, onDisk(action.write.path));
    return patchCall(patch, conversation, callId, id);
  }
  if ("edit" in action) {
    const current = onDisk(action.edit.path) ?? "";
    return patchCall(
      editPatch(action.edit.path, current, action.edit.old, action.edit.new),
      conversation,
      callId,
      id,
    );
  }
  if ("web" in action && offered.includes("web_search")) {
    return {
      type: "web_search_call",
      id: `ws_${callId.slice(5)}`,
      status: "completed",
      action: { type: "open_page", url: action.web },
    };
  }
  return shellCall(actionCommand(action) ?? "true", offered, callId, id);
}

function randomHex(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 16);
}

function usageJson(usage: Usage): Json {
  const input = usage.input + usage.cached;
  const output = usage.output + usage.reasoning;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: input + output,
  };
}

/**
 * The output items and the SSE events of one reply. Hosted web searches come first (the API runs
 * them before the model goes on writing), then the text, then the calls codex must run.
 */
export function replyEvents(reply: Reply, responseId: string): { output: Json[]; events: Json[] } {
  const output: Json[] = [];
  const events: Json[] = [];
  const created = { id: `resp_${responseId}`, object: "response", status: "in_progress" };
  events.push({
    type: "response.created",
    response: { ...created, model: reply.conversation.model },
  });
  const push = (item: Json, delta?: string) => {
    const index = output.length;
    const id = String(item.id);
    if (delta === undefined) {
      events.push({ type: "response.output_item.added", output_index: index, item });
    } else {
      events.push(
        {
          type: "response.output_item.added",
          output_index: index,
          item: { ...item, status: "in_progress", content: [] },
        },
        {
          type: "response.output_text.delta",
          item_id: id,
          output_index: index,
          content_index: 0,
          delta,
        },
      );
    }
    events.push({ type: "response.output_item.done", output_index: index, item });
    output.push(item);
  };
  const calls = reply.calls.map((action, n) =>
    actionItem(action, reply.conversation, `call_${responseId}_${n}`)
  );
  for (const item of calls) if (item.type === "web_search_call") push(item);
  if (reply.text !== "") {
    push({
      type: "message",
      id: `msg_${responseId}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    }, reply.text);
  }
  for (const item of calls) if (item.type !== "web_search_call") push(item);
  const response = {
    ...created,
    model: reply.conversation.model,
    status: "completed",
    output,
    usage: usageJson(reply.usage),
  };
  events.push({ type: "response.completed", response });
  return { output, events };
}

function sse(events: Json[]): Response {
  const body = events
    .map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
    .join("");
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** An error response in OpenAI's shape, with `retry-after` when the scenario gives one. */
export function errorResponse(error: ErrorReply): Response {
  return openaiError(error, { apiKey: "scripted" });
}

/**
 * The catalogue entry that makes codex treat `fake/*` like a current model: unified exec shell,
 * freeform apply_patch, reasoning efforts low..xhigh, and short base instructions (smaller
 * requests). Field set as `codex debug models` prints it in 0.169.0 (all of them are required).
 */
const FAKE_MODEL = {
  slug: "fake",
  display_name: "Scripted",
  description: "Pitroom's scripted model server",
  default_reasoning_level: "medium",
  supported_reasoning_levels: ["low", "medium", "high", "xhigh"].map((effort) => ({
    effort,
    description: effort,
  })),
  shell_type: "unified_exec",
  visibility: "list",
  supported_in_api: true,
  priority: 1,
  additional_speed_tiers: [],
  service_tiers: [],
  availability_nux: null,
  upgrade: null,
  model_messages: null,
  include_skills_usage_instructions: false,
  include_plugin_usage_instructions: false,
  include_apps_usage_instructions: false,
  default_reasoning_summary: "none",
  support_verbosity: true,
  default_verbosity: "low",
  apply_patch_tool_type: "freeform",
  web_search_tool_type: "text_and_image",
  truncation_policy: { mode: "tokens", limit: 10000 },
  supports_image_detail_original: false,
  context_window: 272000,
  max_context_window: 272000,
  comp_hash: "0",
  effective_context_window_percent: 95,
  experimental_supported_tools: [],
  input_modalities: ["text"],
  supports_search_tool: false,
  supports_experimental_context: false,
  use_responses_lite: false,
  supports_reasoning_effort_updates: false,
  node_repl_auto_review_required: false,
  node_repl_disabled: false,
  base_instructions: "You are a scripted test model.",
};

function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** The `config.toml` of a private CODEX_HOME pointing at `baseUrl` (`.../v1`). */
export function codexConfig(baseUrl: string, catalogPath: string): string {
  return [
    `model_provider = "fake"`,
    `model_catalog_json = ${tomlString(catalogPath)}`,
    `check_for_update_on_startup = false`,
    `web_search = "disabled"`,
    ``,
    `[model_providers.fake]`,
    `name = "Scripted model server"`,
    `base_url = ${tomlString(baseUrl)}`,
    `env_key = "FAKE_API_KEY"`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[features]`,
    `plugins = false`,
    `remote_plugin = false`,
    `apps = false`,
    ``,
  ].join("\n");
}

function apiBase(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return trimmed.endsWith("/v1") ? trimmed : `${trimmed}/v1`;
}

/** The codex dialect. */
export const responsesDialect: Dialect = {
  name: "codex",
  matches: (method, url) => method === "POST" && /\/responses$/.test(url.pathname),
  read: (body) => readResponsesRequest(body),
  reply(reply) {
    const { output, events } = replyEvents(reply, randomHex());
    if (reply.conversation.stream) return sse(events);
    const done = events.at(-1);
    return Response.json(isObject(done) ? done.response : { output });
  },
  error: errorResponse,
  async workerEnv(home, baseUrl) {
    const codexHome = join(home, ".codex");
    await mkdir(codexHome, { recursive: true });
    const catalog = join(codexHome, "catalog.json");
    await writeFile(catalog, JSON.stringify({ models: [FAKE_MODEL] }));
    await writeFile(join(codexHome, "config.toml"), codexConfig(apiBase(baseUrl), catalog));
    return { CODEX_HOME: codexHome, FAKE_API_KEY: "scripted" };
  },
};
