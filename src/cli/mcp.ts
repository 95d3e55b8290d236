/**
 * `pitroom mcp [-d DIR] [--http [--port N]]`: Pitroom's tools, resources and prompts for MCP
 * clients, on stdio (the client starts this process) or as a Streamable HTTP service on
 * 127.0.0.1 with a bearer token. SIGINT or SIGTERM ends the server, never the runs.
 */
import { createEngine } from "../engine/mod.ts";
import { RefusedError, UsageError } from "../sys/errors.ts";
import { statOrNullSync } from "../sys/fs.ts";
import { resolve } from "../sys/path.ts";
import type { CommandRun } from "./command.ts";
import type { MCP_FLAGS } from "./mcp_command.ts";
import { VERSION } from "./version.ts";

/** The HTTP port when `--port` is not given. */
export const DEFAULT_MCP_PORT = 7117;

/**
 * How long stdio waits for the client's opening before loading the server: a probe that came by
 * then is answered at once (loading modules can keep the reader from running for seconds).
 */
export const OPENING_WAIT_MS = 300;

/** Serves MCP until the client leaves (stdio) or a signal comes (both). */
export const mcpCommand: CommandRun<typeof MCP_FLAGS> = async ({ sys, flags }) => {
  if (flags.port !== undefined && !flags.http) {
    throw new UsageError("--port needs --http", { hint: "pitroom mcp --http --port 7117" });
  }
  const port = flags.port;
  if (port !== undefined && port > 65535) {
    throw new UsageError(`--port must be at most 65535, got ${port}`);
  }
  const dir = resolve(sys.cwd(), flags.dir ?? ".");
  if (!statOrNullSync(dir)?.isDirectory) {
    throw new RefusedError("no_dir", `Cannot serve MCP in "${dir}": not a directory`);
  }
  // The stdio transport starts first: a client's `server/discover` probe is answered before the
  // engine and the SDK are loaded (stdio_front.ts).
  const front = flags.http
    ? undefined
    : new (await import("../server/mcp/stdio_front.ts")).StdioFront(VERSION);
  if (front !== undefined) {
    const waited = Promise.withResolvers<void>();
    const timer = sys.clock.after(OPENING_WAIT_MS, () => waited.resolve());
    await Promise.race([front.opened.then(() => front.flushed()), waited.promise]);
    timer.cancel();
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("stopped"));
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    // `last` and parts of ids mean the runs of the repository the server works in.
    const engine = createEngine(sys, { dir });
    const { ensureDashboard } = await import("../server/dash/detach.ts");
    const { createMcpServer, serveStdio, taskKey } = await import("../server/mcp/mod.ts");
    let key: Promise<CryptoKey> | undefined;
    const options = {
      dir,
      clock: sys.clock,
      version: VERSION,
      // Results of runs still going carry the live dashboard's address (started when needed).
      dashAddress: () => ensureDashboard(sys),
      // Task ids are signed with the state dir's key (made on the first task).
      taskKey: () => key ??= taskKey(sys),
    };
    if (flags.http) {
      const { serveHttp } = await import("../server/mcp/http.ts");
      await serveHttp(sys, engine, {
        ...options,
        port: port ?? DEFAULT_MCP_PORT,
        signal: stop.signal,
      });
    } else {
      await serveStdio((era) => createMcpServer(engine, options, { era }), {
        signal: stop.signal,
        ...(front === undefined ? {} : { front }),
      });
    }
    return 0;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }
};
