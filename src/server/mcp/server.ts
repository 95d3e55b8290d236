/**
 * `createMcpServer(engine, options)`: one MCP server (no transport) with Pitroom's tools,
 * resources and prompts over one engine. Each stdio process has one; over HTTP each session has
 * its own. Closing it ends its feeds and any waiting, never a run.
 */
import type { Engine } from "../../engine/mod.ts";
import type { Clock } from "../../sys/mod.ts";
import instructions from "./instructions.md" with { type: "text" };
import { readsStructured } from "./clients.ts";
import { registerPrompts } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import { McpServer } from "./sdk.ts";
import { type ContextOf, registerTool } from "./tool.ts";
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
}

/** A server and what ends it. */
export interface PitroomMcpServer extends AsyncDisposable {
  readonly server: McpServer;
  /** Closes the transport (if connected), lets the calls in flight end, ends the feeds; runs go on. */
  close(): Promise<void>;
}

/** The MCP server over `engine`. */
export function createMcpServer(engine: Engine, options: McpServerOptions): PitroomMcpServer {
  const server = new McpServer(
    { name: "pitroom", title: "Pitroom", version: options.version },
    { instructions },
  );
  const dashAddress = async (): Promise<string | undefined> => {
    if (options.dashAddress === undefined) return undefined;
    const { settings } = await engine.settings();
    return settings.mcpDash.value ? await options.dashAddress() : undefined;
  };
  const contextOf: ContextOf = (extra) => ({
    engine,
    dir: options.dir,
    clock: options.clock,
    extra,
    connected: () => server.isConnected(),
    dashAddress,
    readsStructured: () => readsStructured(server.server.getClientVersion()?.name),
  });
  const inflight = new Set<Promise<unknown>>();
  for (const tool of TOOLS) registerTool(server, tool, contextOf, inflight);
  registerPrompts(server);
  const endFeeds = registerResources(server, engine);
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      if (server.isConnected()) await server.close();
      // The calls end with the session (their waits are aborted): let them finish first.
      await Promise.allSettled([...inflight]);
      await endFeeds();
    })();
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    void close();
  };
  return { server, close, [Symbol.asyncDispose]: close };
}
