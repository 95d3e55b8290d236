/**
 * A 2026-07-28 client that speaks the wire itself, for the server's modern-era tests: every
 * request carries the per-request `_meta` (protocol version, client info and capabilities, the
 * Tasks extension when asked), over stdio (`pitroom mcp` as a child) or HTTP (`pitroom mcp
 * --http`, with the standard headers). What it sends and gets is exactly what the tests assert.
 */
import type { HttpServer, World } from "./_world.ts";
import { moduleCacheEnv, pitroomArgv } from "../../support/pitroom.ts";
import { ChildTransport } from "./_child_transport.ts";
import type { JSONRPCMessage } from "./_sdk.ts";

export const MODERN = "2026-07-28";
export const TASKS = "io.modelcontextprotocol/tasks";

/** A JSON-RPC response: its result or its error. */
export interface Response {
  // deno-lint-ignore no-explicit-any
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

/** Options of one request. */
export interface RequestOptions {
  /** Declare the Tasks extension in this request's capabilities. @default false */
  tasks?: boolean;
}

/** A modern client. */
export interface ModernClient extends AsyncDisposable {
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<Response>;
}

/** The `_meta` of a 2026-07-28 request. */
export function envelope(tasks: boolean): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "pitroom-modern-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [TASKS]: {} } } : {},
  };
}

function message(id: number, method: string, params: Record<string, unknown>, tasks: boolean) {
  const meta = { ...envelope(tasks), ...(params._meta as Record<string, unknown> | undefined) };
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } };
}

/** `pitroom mcp` on stdio in the world's repo, spoken to in the 2026-07-28 protocol. */
export async function modernStdio(w: World, extraEnv: Record<string, string> = {}): Promise<
  ModernClient & { transport: ChildTransport }
> {
  const transport = new ChildTransport([...pitroomArgv(), "mcp"], {
    env: {
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "",
      ...moduleCacheEnv(),
      ...w.env,
      ...extraEnv,
    },
    clearEnv: true,
    cwd: w.repo,
  });
  const pending = new Map<number, (r: Response) => void>();
  transport.onmessage = (m: JSONRPCMessage) => {
    const r = m as { id?: number } & Response;
    if (typeof r.id === "number" && pending.has(r.id)) {
      pending.get(r.id)!(r);
      pending.delete(r.id);
    }
  };
  await transport.start();
  let next = 0;
  return {
    transport,
    request(method, params = {}, options = {}) {
      const id = next++;
      const answered = new Promise<Response>((resolve) => pending.set(id, resolve));
      void transport.send(message(id, method, params, options.tasks === true) as JSONRPCMessage);
      return answered;
    },
    [Symbol.asyncDispose]: () => transport.close(),
  };
}

/** One JSON-RPC request POSTed with the 2026-07-28 standard headers; its response. */
export async function post(
  server: HttpServer,
  body: { id: string | number; method: string; params?: Record<string, unknown> },
): Promise<Response> {
  const params = body.params ?? {};
  const name = (params.name ?? params.uri ?? params.taskId) as string | undefined;
  const response = await fetch(server.url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${server.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": body.method,
      ...(name === undefined ? {} : { "mcp-name": name }),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    // The last `data:` line that answers this request.
    const answers = text.split("\n").filter((l) => l.startsWith("data:"))
      .map((l) => JSON.parse(l.slice(5)) as Response & { id?: number })
      .filter((m) => m.id === body.id);
    return answers.at(-1) ?? { error: { code: 0, message: `no answer in ${text}` } };
  }
  return JSON.parse(text) as Response;
}

/** A running `pitroom mcp --http`, spoken to in the 2026-07-28 protocol (one POST a request). */
export function modernHttp(server: HttpServer): ModernClient {
  let next = 0;
  return {
    request: (method, params = {}, options = {}) =>
      post(server, message(next++, method, params, options.tasks === true)),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}
