/**
 * What the server says of itself, per protocol era: its identity, its instructions and its
 * capabilities (the 2026-07-28 era adds the Tasks extension). `discoverResult` is the
 * `server/discover` answer the stdio front sends before the SDK is loaded (stdio_front.ts); it
 * is the SDK's own answer, field for field (tests/server/mcp/modern_test.ts holds them equal).
 * This module imports no package, so answering costs no start-up.
 */
import instructions from "./instructions.md" with { type: "text" };

/** The protocol revision of the stateless era, and the `_meta` keys it uses. */
export const MODERN_VERSION = "2026-07-28";
/** Every protocol version the server speaks (the older ones through `initialize`). */
export const SUPPORTED_VERSIONS = [
  MODERN_VERSION,
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];
export const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
export const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";
/** The Tasks extension's identifier. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The server's instructions for a model. */
export const INSTRUCTIONS: string = instructions;

/** The server's identity. */
export function serverInfo(version: string) {
  return { name: "pitroom", title: "Pitroom", version };
}

/** The capabilities of each era. */
export const CAPABILITIES = {
  legacy: {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { listChanged: true, subscribe: true },
  },
  modern: {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { listChanged: true },
    extensions: { [TASKS_EXTENSION]: {} },
  },
} as const;

/** The `server/discover` result, as the SDK serves it. */
export function discoverResult(version: string): Record<string, unknown> {
  return {
    supportedVersions: [MODERN_VERSION],
    capabilities: CAPABILITIES.modern,
    instructions: INSTRUCTIONS,
    resultType: "complete",
    ttlMs: 0,
    cacheScope: "private",
    _meta: { [SERVER_INFO_KEY]: serverInfo(version) },
  };
}

/** True when a JSON-RPC request is a 2026-07-28 `server/discover` (its `_meta` says so). */
export function isModernDiscover(message: unknown): message is { id: string | number } {
  if (typeof message !== "object" || message === null) return false;
  const m = message as Record<string, unknown>;
  const params = m.params as Record<string, unknown> | undefined;
  const meta = params?._meta as Record<string, unknown> | undefined;
  return m.jsonrpc === "2.0" && m.method === "server/discover" &&
    (typeof m.id === "string" || typeof m.id === "number") &&
    meta?.[PROTOCOL_VERSION_KEY] === MODERN_VERSION &&
    typeof meta?.[CLIENT_CAPABILITIES_KEY] === "object" && meta?.[CLIENT_CAPABILITIES_KEY] !== null;
}
