/**
 * `createMcpServer(engine, options)`: one MCP server (no transport) with Pitroom's tools,
 * resources and prompts over one engine, for one protocol era. A 2025-11-25 (legacy) server is
 * one session's: stdio's process, an HTTP session. A 2026-07-28 (modern) server answers
 * stateless requests: stdio's process pins one, HTTP makes one per request; it also serves the
 * Tasks extension (tasks.ts). Closing it ends its feeds and any waiting, never a run.
 */
import type { Engine } from "../../engine/mod.ts";
import type { Clock } from "../../sys/mod.ts";
import { readsStructured } from "./clients.ts";
import { CAPABILITIES, INSTRUCTIONS, serverInfo } from "./discover.ts";
import { registerPrompts } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import { McpServer } from "./sdk.ts";
import { registerTasks } from "./tasks.ts";
import { type ContextOf, registerTools } from "./tool.ts";
import { TOOLS } from "./tools/mod.ts";

/** Options of `createMcpServer`. */
export interface McpServerOptions {
  /** The directory runs work in when a call names none (relative ones resolve against it). */
  dir: string;
  clock: Clock;
  /** Pitroom's version, told to clients. */
  version: string;
  /**
   * The live dashboard's address (starting it if need be): results of runs still going after a
   * few seconds carry it, unless the `mcpDash` setting is off. @default no address
   */
  dashAddress?: () => Promise<string | undefined>;
  /** The key that signs task ids (task_id.ts); without it no call becomes a task. */
  taskKey?: () => Promise<CryptoKey>;
}

/** Which protocol a server speaks: 2025-11-25 and before, or 2026-07-28. */
export type Era = "legacy" | "modern";

/** Options of one server beyond the shared ones. */
export interface CreateOptions {
  /** @default "legacy" */
  era?: Era;
  /**
   * Follow the runs to send `list_changed` and `resources/updated` (a long-lived server: stdio,
   * an HTTP session); a per-request modern server does not. @default true
   */
  follow?: boolean;
  /** The transport is still open (a closed session stops no run). @default the server's own */
  connected?: () => boolean;
}

/** A server and what ends it. */
export interface PitroomMcpServer extends AsyncDisposable {
  readonly server: McpServer;
  /** Closes the transport (if connected), lets the calls in flight end, ends the feeds; runs go on. */
  close(): Promise<void>;
}

/** The MCP server over `engine`. */
export function createMcpServer(
  engine: Engine,
  options: McpServerOptions,
  create: CreateOptions = {},
): PitroomMcpServer {
  const era = create.era ?? "legacy";
  const server = new McpServer(serverInfo(options.version), {
    instructions: INSTRUCTIONS,
    capabilities: CAPABILITIES[era],
  });
  const dashAddress = async (): Promise<string | undefined> => {
    if (options.dashAddress === undefined) return undefined;
    const { settings } = await engine.settings();
    return settings.mcpDash.value ? await options.dashAddress() : undefined;
  };
  const connected = create.connected ?? (() => server.isConnected());
  const contextOf: ContextOf = (extra) => ({
    engine,
    dir: options.dir,
    clock: options.clock,
    extra,
    connected,
    dashAddress,
    // A 2026-07-28 request names its client; a 2025 session named it at `initialize`.
    readsStructured: () =>
      readsStructured(extra.clientName ?? server.server.getClientVersion()?.name),
  });
  const inflight = new Set<Promise<unknown>>();
  const tasks = era === "modern" && options.taskKey !== undefined
    ? registerTasks(server, { engine, clock: options.clock, key: options.taskKey, contextOf })
    : undefined;
  registerTools(server, TOOLS, contextOf, {
    inflight,
    legacyExecution: era === "legacy",
    ...(tasks === undefined ? {} : { onCall: tasks.onCall }),
  });
  registerPrompts(server);
  const endFeeds = registerResources(server, engine, {
    follow: create.follow ?? true,
    subscribe: era === "legacy",
  });
  // Memoized before it starts: `server.close()` calls `onclose` (below) at once, which asks for
  // the close again; a second close must wait for this one, never run beside it and end first.
  let closed: PromiseWithResolvers<void> | undefined;
  const close = () => {
    if (closed !== undefined) return closed.promise.catch(() => undefined);
    closed = Promise.withResolvers<void>();
    (async () => {
      if (server.isConnected()) await server.close();
      // The calls end with the session (their waits are aborted): let them finish first.
      await Promise.allSettled([...inflight]);
      await endFeeds();
    })().then(closed.resolve, closed.reject);
    return closed.promise;
  };
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    void close();
  };
  return { server, close, [Symbol.asyncDispose]: close };
}
