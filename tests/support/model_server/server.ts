/**
 * The scripted model server as a fetch handler that does not listen: request -> dialect (by
 * method and path) -> conversation -> scenario (model id or marker) -> turn (tool-result rounds)
 * -> delay, error, hang or reply in the dialect's shapes -> one log entry. `main.ts` and the test
 * fixture bind it to 127.0.0.1.
 */
import type { Action, Conversation, Dialect, Usage } from "./dialect.ts";
import { DIALECTS } from "./dialects/mod.ts";
import {
  chooseTurn,
  listScenarios,
  loadScenario,
  pastEndText,
  type Scenario,
  ScenarioError,
  scenarioName,
  type Turn,
  type TurnChoice,
} from "./scenario.ts";

/** One line of the request log. */
export interface LogEntry {
  dialect: Dialect["name"];
  model: string;
  /** The scenario the request named (`null` for requests that offer no tools). */
  scenario: string | null;
  /** Index of the turn played (`null` when no scenario turn was involved). */
  turn: number | null;
  /** True when the turn came from the scenario's `followup` list. */
  followup: boolean;
  /** Names of the tools the request offered. */
  tools: string[];
  /** The latest user message, first 2,000 characters. */
  user: string;
  /**
   * The tool results sent after the latest user message, each its first 4,000 characters (how a
   * test sees a tool's result reach the client's next model call).
   */
  results?: string[];
  /** HTTP status sent. */
  status: number;
  /** What was played: a reply, an error kind, a hang, or the fixed text for a tool-less call. */
  played: "reply" | "error" | "hang" | "untooled" | "bad_request" | "bad_scenario";
}

/** Options of `createModelServer`. */
export interface ModelServerOptions {
  /** Directory of `NAME.json` scenario files (read on every request, so files can be added). */
  scenariosDir: string;
  /** Append one JSON line per request to this file. */
  logFile?: string;
}

/** A `Deno.serve`-compatible handler with its request log. */
export interface ModelServer {
  (request: Request): Promise<Response>;
  /** Log entries of the requests handled so far, oldest first. */
  requests(): LogEntry[];
  /** Ends every hanging or delayed response now (before the listener shuts down). */
  close(): void;
}

/** Text answered to requests that offer no tools (title and summary calls). */
export const UNTOOLED_TEXT = "Scripted session";

const USER_LOG_CHARS = 2_000;
const RESULT_LOG_CHARS = 4_000;

function json(body: unknown, status: number): Response {
  return Response.json(body, { status });
}

/** Tokens for a number of characters, 4 characters a token, at least 1. */
export function tokensFor(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

function estimateUsage(requestChars: number, text: string, calls: Action[]): Usage {
  const replyChars = text.length + (calls.length === 0 ? 0 : JSON.stringify(calls).length);
  return { input: tokensFor(requestChars), output: tokensFor(replyChars), cached: 0, reasoning: 0 };
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

function hangingResponse(stream: boolean, closing: AbortSignal): Response {
  let end = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      end = () => controller.close();
      if (closing.aborted) end();
      else closing.addEventListener("abort", end, { once: true });
    },
    // The client went away: Deno cancels the body.
    cancel() {
      closing.removeEventListener("abort", end);
    },
  });
  const type = stream ? "text/event-stream" : "application/json";
  return new Response(body, { status: 200, headers: { "content-type": type } });
}

function replyText(turn: Turn, scenario: Scenario, choice: TurnChoice): string {
  if (turn.calls.length > 0) return turn.say ?? "";
  const parts = [turn.say, turn.answer].filter((part) => part !== undefined);
  return parts.length > 0 ? parts.join("\n\n") : pastEndText(scenario, choice.list);
}

/** Creates the scripted model server's handler over a scenarios dir. */
export function createModelServer(options: ModelServerOptions): ModelServer {
  const entries: LogEntry[] = [];
  const failures = new Map<string, number>();
  const closing = new AbortController();

  async function record(entry: LogEntry): Promise<void> {
    entries.push(entry);
    if (options.logFile !== undefined) {
      await Deno.writeTextFile(options.logFile, JSON.stringify(entry) + "\n", { append: true });
    }
  }

  async function models(): Promise<Response> {
    const names = await listScenarios(options.scenariosDir);
    const data = names.map((id) => ({ id, object: "model", created: 0, owned_by: "pitroom" }));
    return json({ object: "list", data }, 200);
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === "/v1/models") return await models();
    const dialect = DIALECTS.find((d) => d.matches(request.method, url));
    if (dialect === undefined) {
      return json({ error: { message: `No route for ${request.method} ${url.pathname}` } }, 404);
    }
    const raw = await request.text();
    let conversation: Conversation;
    try {
      conversation = dialect.read(JSON.parse(raw), url);
    } catch (error) {
      const message = `Bad request: ${error instanceof Error ? error.message : String(error)}`;
      await record({
        dialect: dialect.name,
        model: "",
        scenario: null,
        turn: null,
        followup: false,
        tools: [],
        user: "",
        status: 400,
        played: "bad_request",
      });
      return json({ error: { message } }, 400);
    }
    const base = {
      dialect: dialect.name,
      model: conversation.model,
      tools: conversation.toolsOffered,
      user: conversation.latestUser.slice(0, USER_LOG_CHARS),
      ...(conversation.toolResults === undefined
        ? {}
        : { results: conversation.toolResults.map((r) => r.slice(0, RESULT_LOG_CHARS)) }),
    };
    const reply = (text: string, calls: Action[], usage: Usage | undefined) =>
      dialect.reply({
        text,
        calls,
        usage: usage ?? estimateUsage(raw.length, text, calls),
        conversation,
      });

    if (conversation.toolsOffered.length === 0) {
      const response = reply(UNTOOLED_TEXT, [], undefined);
      await record({
        ...base,
        scenario: null,
        turn: null,
        followup: false,
        status: response.status,
        played: "untooled",
      });
      return response;
    }

    const name = scenarioName(conversation);
    let scenario: Scenario | null;
    try {
      scenario = await loadScenario(options.scenariosDir, name);
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      const response = dialect.error({
        status: 500,
        kind: "server",
        message: error.message,
        model: conversation.model,
      });
      await record({
        ...base,
        scenario: name,
        turn: null,
        followup: false,
        status: 500,
        played: "bad_scenario",
      });
      return response;
    }
    if (scenario === null) {
      const response = dialect.error({
        status: 404,
        kind: "model_not_found",
        message: "",
        model: conversation.model,
      });
      await record({
        ...base,
        scenario: name,
        turn: null,
        followup: false,
        status: response.status,
        played: "error",
      });
      return response;
    }

    const choice = chooseTurn(scenario, conversation);
    const at = {
      ...base,
      scenario: name,
      turn: choice.index,
      followup: choice.list === "followup",
    };
    const turn = choice.turn;
    if (turn === null) {
      const response = reply(pastEndText(scenario, choice.list), [], undefined);
      await record({ ...at, status: response.status, played: "reply" });
      return response;
    }

    await abortableDelay(turn.delayMs, closing.signal);
    if (turn.error !== undefined) {
      const key = `${name}\u0000${choice.list}\u0000${choice.index}`;
      const failed = failures.get(key) ?? 0;
      if (turn.error.times === undefined || failed < turn.error.times) {
        failures.set(key, failed + 1);
        const response = dialect.error({
          status: turn.error.status,
          kind: turn.error.kind,
          message: turn.error.message ?? "",
          ...(turn.error.retryAfterS === undefined ? {} : { retryAfterS: turn.error.retryAfterS }),
          model: conversation.model,
        });
        await record({ ...at, status: response.status, played: "error" });
        return response;
      }
    }
    if (turn.hang) {
      await record({ ...at, status: 200, played: "hang" });
      return hangingResponse(conversation.stream, closing.signal);
    }
    const response = reply(replyText(turn, scenario, choice), turn.calls, turn.usage);
    await record({ ...at, status: response.status, played: "reply" });
    return response;
  }

  return Object.assign(handle, {
    requests: () => [...entries],
    close: () => closing.abort(),
  });
}
