/**
 * An MCP test's world: the end-to-end world (scripted model server, a repo, a state dir; runs
 * are real opencode processes in the state dir's host) and SDK clients connected to the real
 * program: `main.ts mcp` over stdio, or `main.ts mcp --http` on a free loopback port.
 */
import { join } from "node:path";
import { type World, world } from "../../e2e/_world.ts";
import { createEngine, type Engine } from "../../../src/engine/mod.ts";
import { realSys } from "../../../src/sys/real.ts";
import { moduleCacheEnv, pitroomArgv } from "../../support/pitroom.ts";
import { ChildTransport } from "./_child_transport.ts";
import { Client, StreamableHTTPClientTransport } from "./_sdk.ts";

export type { World };
export { world };

/** An engine over the world's state dir, in this process (to look at runs the server started). */
export function engineOf(w: World, extra: Record<string, string> = {}): Engine {
  const all = env(w, extra);
  return createEngine({
    ...realSys(),
    env: { get: (name) => all[name], toObject: () => ({ ...all }) },
    stateDir: w.stateDir,
    configPath: all.PITROOM_CONFIG!,
    cwd: () => w.repo,
    // This process is a test runner: the host is the real program.
    selfCommand: pitroomArgv,
  });
}

/** The structured content of a tool result, typed loosely for assertions. */
// deno-lint-ignore no-explicit-any
export function structured(result: unknown): any {
  const content = (result as { structuredContent?: unknown }).structuredContent;
  if (content === undefined) throw new Error(`no structured content: ${JSON.stringify(result)}`);
  return content;
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

/** A connected client that disconnects when disposed. */
export interface Connected extends AsyncDisposable {
  client: Client;
}

/** A client of `pitroom mcp` on stdio, and the server process behind it. */
export interface StdioConnected extends Connected {
  transport: ChildTransport;
}

function env(w: World, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NO_COLOR: "1",
    PATH: Deno.env.get("PATH") ?? "",
    ...moduleCacheEnv(),
    ...w.env,
    ...extra,
  };
}

/** How long a test's call waits for its runs when it names no wait of its own. */
const PATIENT_SECONDS = 900;

/**
 * A test client whose calls end when their runs do, however busy the machine: a call that starts
 * or waits for runs and names no wait gets a long one (the runs' end, not the clock, ends it:
 * the tools' default of 50 s failed under load), and the SDK's request timeout (60 s by default)
 * is raised past it. A call that names its wait keeps it.
 */
export function patient(client: Client): Client {
  const call = client.callTool.bind(client);
  client.callTool = ((params, schema, options) => {
    const args: Record<string, unknown> = { ...(params.arguments ?? {}) };
    const starts = ["pitroom_run", "pitroom_review", "pitroom_audit"].includes(params.name);
    if (starts && args.waitSeconds === undefined) args.waitSeconds = PATIENT_SECONDS;
    if (params.name === "pitroom_wait" && args.timeoutSeconds === undefined) {
      args.timeoutSeconds = PATIENT_SECONDS;
    }
    return call({ ...params, arguments: args }, schema, {
      timeout: (PATIENT_SECONDS + 60) * 1000,
      ...options,
    });
  }) as typeof client.callTool;
  return client;
}

/**
 * Starts `pitroom mcp` on stdio in the world's repo and connects the SDK's client to it, named
 * `clientName` (what the server learns of the client at `initialize`).
 */
export async function stdioClient(
  w: World,
  options: { args?: string[]; env?: Record<string, string>; clientName?: string } = {},
): Promise<StdioConnected> {
  const transport = new ChildTransport([...pitroomArgv(), "mcp", ...(options.args ?? [])], {
    env: env(w, options.env),
    clearEnv: true,
    cwd: w.repo,
  });
  const client = patient(
    new Client({ name: options.clientName ?? "pitroom-test", version: "1.0.0" }),
  );
  await client.connect(transport);
  return { client, transport, [Symbol.asyncDispose]: () => client.close() };
}

/** A running `pitroom mcp --http`: its URL and token, and what stops it. */
export interface HttpServer extends AsyncDisposable {
  url: string;
  port: number;
  token: string;
  stderr(): string;
  connect(options?: { token?: string }): Promise<Connected>;
}

/** Starts `pitroom mcp --http --port 0` and waits for its address on stderr. */
export async function httpServer(
  w: World,
  options: { env?: Record<string, string> } = {},
): Promise<HttpServer> {
  const [command, ...args] = pitroomArgv();
  const child = new Deno.Command(command!, {
    args: [...args, "mcp", "--http", "--port", "0"],
    cwd: w.repo,
    env: env(w, options.env),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const started = (async () => {
    while (!/register it: .*\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`pitroom mcp --http ended before listening:\n${text}`);
      text += value;
    }
  })();
  await started;
  const drained = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      text += value;
    }
  })();
  let stopped: Promise<void> | undefined;
  const port = Number(/http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(text)![1]);
  const url = `http://127.0.0.1:${port}/mcp`;
  const token = options.env?.PITROOM_MCP_TOKEN ??
    (await Deno.readTextFile(join(w.stateDir, "mcp-token"))).trim();
  return {
    url,
    port,
    token,
    stderr: () => text,
    async connect(o = {}) {
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${o.token ?? token}` } },
      });
      const client = patient(new Client({ name: "pitroom-test", version: "1.0.0" }));
      await client.connect(transport);
      return {
        client,
        async [Symbol.asyncDispose]() {
          await transport.terminateSession().catch(() => undefined);
          await client.close();
        },
      };
    },
    [Symbol.asyncDispose]() {
      stopped ??= (async () => {
        child.kill("SIGTERM");
        await child.status;
        await drained;
      })();
      return stopped;
    },
  };
}
