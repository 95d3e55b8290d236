/**
 * The Streamable HTTP transport (`pitroom mcp --http`): a Hono app serving `/mcp` in both
 * protocol eras. Every request passes, in order: the Host/Origin check (403), the bearer token
 * (401), the body limit (413). A request whose `_meta` names the 2026-07-28 protocol goes to the
 * SDK's stateless entry (a server per request, with tasks); anything else is the 2025-11-25
 * protocol: the SDK's web-standard transport, one transport and one server per session, and a
 * new session past the limit closes one idle for long, or is refused (503). `serveHttp` listens
 * on 127.0.0.1 only and prints where it works and the line that registers it. Closing ends the
 * sessions, never the runs.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Engine } from "../../engine/mod.ts";
import { RefusedError } from "../../sys/errors.ts";
import type { Sys } from "../../sys/mod.ts";
import { isLocalHost, isLocalOrigin } from "./guard.ts";
import { PROTOCOL_VERSION_KEY } from "./discover.ts";
import {
  createMcpHandler,
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
} from "./sdk.ts";
import { createMcpServer, type McpServerOptions, type PitroomMcpServer } from "./server.ts";
import { mcpToken, sameToken } from "./token.ts";

/** Options of `createMcpHttpApp`. */
export interface McpHttpOptions extends McpServerOptions {
  /** The bearer token every request must carry. */
  token: string;
  /** @default 1048576 (1 MiB) */
  maxBodyBytes?: number;
  /** @default 32 */
  maxSessions?: number;
  /**
   * At the session limit, a session that made no request for this long is closed to make room
   * (its client, if it comes back, gets 404 and starts a new one). @default 600000 (10 min)
   */
  idleMs?: number;
}

/** The app and its sessions. */
export interface McpHttpApp {
  app: Hono;
  /** How many sessions are open. */
  sessions(): number;
  /** Ends every session (the runs go on). */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  mcp: PitroomMcpServer;
  /** When its last request came (ms). */
  seen: number;
}

function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** True when a body claims the 2026-07-28 protocol (a request's `_meta` names a version). */
function claimsModern(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const params = (body as { params?: { _meta?: Record<string, unknown> } }).params;
  return typeof params?._meta?.[PROTOCOL_VERSION_KEY] === "string";
}

/** The `/mcp` app (it does not listen: `serveHttp` does, tests may call `app.request`). */
export function createMcpHttpApp(engine: Engine, options: McpHttpOptions): McpHttpApp {
  const sessions = new Map<string, Session>();
  // The stateless era: a server per request, no feeds; a request's own abort is its cancellation.
  const modern = createMcpHandler(
    () =>
      createMcpServer(engine, options, { era: "modern", follow: false, connected: () => true })
        .server,
    { legacy: "reject", maxRequestBodySize: options.maxBodyBytes ?? 1024 * 1024 },
  );
  const maxSessions = options.maxSessions ?? 32;
  let opening = 0;
  /** Closes the session idle longest, if it has been idle long enough. */
  const closeIdle = async () => {
    const idleMs = options.idleMs ?? 600_000;
    const oldest = [...sessions.entries()].sort(([, a], [, b]) => a.seen - b.seen)[0];
    if (oldest === undefined || options.clock.now() - oldest[1].seen < idleMs) return;
    sessions.delete(oldest[0]);
    await oldest[1].mcp.close();
  };
  const app = new Hono();
  app.use("*", async (c, next) => {
    if (!isLocalHost(c.req.header("host")) || !isLocalOrigin(c.req.header("origin"))) {
      return c.json({ error: "Pitroom's MCP server answers only local pages and clients" }, 403);
    }
    await next();
  });
  app.use("*", async (c, next) => {
    const auth = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (match === null || !(await sameToken(match[1]!, options.token))) {
      c.header("WWW-Authenticate", 'Bearer realm="pitroom"');
      return c.json({ error: "A valid bearer token is needed (Authorization: Bearer TOKEN)" }, 401);
    }
    await next();
  });
  app.use(
    "*",
    bodyLimit({
      maxSize: options.maxBodyBytes ?? 1024 * 1024,
      onError: (c) => c.json({ error: "The request body is too large" }, 413),
    }),
  );
  app.all("/mcp", async (c) => {
    const id = c.req.header("mcp-session-id");
    let body: unknown = undefined;
    if (c.req.method === "POST") {
      try {
        body = await c.req.json();
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        return rpcError(400, -32700, "Parse error: the body is not JSON");
      }
    }
    const parsed = body === undefined ? {} : { parsedBody: body };
    if (id === undefined && claimsModern(body)) return await modern.fetch(c.req.raw, parsed);
    if (id !== undefined) {
      const session = sessions.get(id);
      if (session === undefined) return rpcError(404, -32001, "Session not found");
      session.seen = options.clock.now();
      return await session.transport.handleRequest(c.req.raw, parsed);
    }
    if (c.req.method !== "POST" || !isInitializeRequest(body)) {
      return rpcError(400, -32000, "Bad request: no session (start one with initialize)");
    }
    if (sessions.size + opening >= maxSessions) await closeIdle();
    if (sessions.size + opening >= maxSessions) {
      return rpcError(503, -32000, `Too many sessions (at most ${maxSessions}): close one first`);
    }
    opening++;
    const mcp = createMcpServer(engine, options);
    let sessionId: string | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sid) => {
        sessionId = sid;
        sessions.set(sid, { transport, mcp, seen: options.clock.now() });
      },
    });
    transport.onclose = () => {
      if (sessionId !== undefined) sessions.delete(sessionId);
      void mcp.close();
    };
    try {
      await mcp.server.connect(transport);
      const response = await transport.handleRequest(c.req.raw, parsed);
      if (sessionId === undefined) await mcp.close();
      return response;
    } finally {
      opening--;
    }
  });
  return {
    app,
    sessions: () => sessions.size,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all([...open.map((s) => s.mcp.close()), modern.close()]);
    },
  };
}

/** Options of `serveHttp`. */
export interface ServeHttpOptions extends McpServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** Aborting ends the server. */
  signal: AbortSignal;
  /** Called once listening, with the real port. */
  onListen?(port: number): void;
}

/** Serves `/mcp` on 127.0.0.1 until `signal` aborts. */
export async function serveHttp(
  sys: Sys,
  engine: Engine,
  options: ServeHttpOptions,
): Promise<void> {
  const { token, path } = await mcpToken(sys);
  const web = createMcpHttpApp(engine, { ...options, token });
  const listening = Promise.withResolvers<number>();
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname: "127.0.0.1",
      port: options.port,
      onListen: ({ port }) => listening.resolve(port),
    }, web.app.fetch);
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    throw new RefusedError(
      "port_in_use",
      `Cannot serve MCP on 127.0.0.1:${options.port}: the port is in use`,
      {
        hint: "pitroom mcp --http --port 0 (a free port) or another --port",
      },
    );
  }
  const port = await listening.promise;
  const url = `http://127.0.0.1:${port}/mcp`;
  const bearer = path === undefined ? "$PITROOM_MCP_TOKEN" : `$(cat ${path})`;
  sys.out.stderr(
    [
      `pitroom mcp: serving ${url} (Streamable HTTP, bearer token)`,
      `runs work in ${options.dir}`,
      `register it: claude mcp add --transport http pitroom ${url} --header "Authorization: Bearer ${bearer}"`,
      "",
    ].join("\n"),
  );
  options.onListen?.(port);
  const stopped = Promise.withResolvers<void>();
  if (options.signal.aborted) stopped.resolve();
  options.signal.addEventListener("abort", () => stopped.resolve(), { once: true });
  await stopped.promise;
  await web.close();
  await server.shutdown();
}
