/**
 * The Agent Client Protocol's wire, as far as Pitroom speaks it (pure): JSON-RPC 2.0 messages,
 * one per line, over the agent's stdin and stdout. Pitroom is the client and sends exactly four
 * requests per attempt, each under a fixed id (`IDS`), so any line can be read without history:
 * `initialize`, then `session/new` (or `session/resume` / `session/load` for a follow-up), then
 * `session/set_model` or `session/set_config_option` when a model was asked for, then
 * `session/prompt`; `session/cancel` is a notification. The agent sends `session/update`
 * notifications and may call the client (`session/request_permission`; `fs/*` and `terminal/*`,
 * which Pitroom does not offer and answers "method not found").
 */
import { isObject, type Json, parseJsonObject, str } from "../_json.ts";

/** The protocol version Pitroom speaks (ACP's major version). */
export const PROTOCOL_VERSION = 1;

/** The ids of Pitroom's requests. */
export const IDS = { initialize: 1, session: 2, model: 3, prompt: 4 } as const;

/** JSON-RPC's "method not found". */
export const METHOD_NOT_FOUND = -32601;
/** JSON-RPC's "invalid params". */
export const INVALID_PARAMS = -32602;

/** One line of the agent's stdout, read. */
export type Message =
  | { kind: "response"; id: unknown; result: unknown }
  | { kind: "failure"; id: unknown; code: number | undefined; message: string }
  | { kind: "request"; id: string | number; method: string; params: Json }
  | { kind: "notification"; method: string; params: Json }
  | { kind: "invalid" };

function validId(id: unknown): id is string | number {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** Reads one line as a JSON-RPC message (pure); anything else is `invalid`. */
export function readMessage(line: string): Message {
  const value = parseJsonObject(line);
  if (value === null || value.jsonrpc !== "2.0") return { kind: "invalid" };
  const method = str(value.method);
  const params = isObject(value.params) ? value.params : {};
  if (method !== undefined) {
    if (Object.hasOwn(value, "id")) {
      return validId(value.id) ? { kind: "request", id: value.id, method, params } : {
        kind: "invalid",
      };
    }
    return { kind: "notification", method, params };
  }
  if (!Object.hasOwn(value, "id")) return { kind: "invalid" };
  if (isObject(value.error)) {
    const code = typeof value.error.code === "number" ? value.error.code : undefined;
    return {
      kind: "failure",
      id: value.id,
      code,
      message: errorText(value.error),
    };
  }
  if (Object.hasOwn(value, "result")) {
    return { kind: "response", id: value.id, result: value.result };
  }
  return { kind: "invalid" };
}

/** The words of a JSON-RPC error: its message, and a string or `message` in its data. */
function errorText(error: Json): string {
  const message = str(error.message) ?? "error";
  const data = error.data;
  const detail = str(data) ?? (isObject(data) ? str(data.message) ?? str(data.details) : undefined);
  return detail === undefined || detail === message ? message : `${message}: ${detail}`;
}

/** A request line of Pitroom's. */
export function request(id: number, method: string, params: Json): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

/** A notification line of Pitroom's. */
export function notification(method: string, params: Json): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}

/** The answer to one of the agent's requests. */
export function response(id: string | number, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

/** The error answer to one of the agent's requests. */
export function errorResponse(id: string | number, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
}

/**
 * The `initialize` request: protocol version 1 and no client capabilities. Pitroom offers no
 * file system and no terminal of its own: the agent reads, writes and runs commands itself,
 * inside the sandbox, so nothing it does bypasses the confinement of the run.
 */
export function initialize(): string {
  return request(IDS.initialize, "initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
}
