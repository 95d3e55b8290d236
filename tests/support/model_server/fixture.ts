/**
 * The scripted model server for tests: binds 127.0.0.1:0 in-process, writes scenarios given as a
 * record into a temp dir, prepares a private worker home, and cleans everything up on dispose
 * (`await using server = await startModelServer({...})`).
 */
import { join } from "node:path";
import { prepareWorkerEnv } from "./env_file.ts";
import { listScenarios } from "./scenario.ts";
import { createModelServer, type LogEntry } from "./server.ts";

export type { LogEntry } from "./server.ts";

/** Options of `startModelServer`. */
export interface StartOptions {
  /** A scenarios dir, or scenarios by name (written to a temp dir as `NAME.json`). */
  scenarios: string | Record<string, unknown>;
  /**
   * Also append the request log to a file (`logFile`); `requests()` works either way.
   * @default false
   */
  log?: boolean;
}

/** A running in-process model server and the worker env that points at it. */
export interface RunningModelServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  scenariosDir: string;
  /** The private worker home (HOME; XDG dirs and TMPDIR inside it). */
  home: string;
  /** The worker env: HOME, XDG dirs, TMPDIR, each CLI's settings, PATH with the worker CLIs first. */
  env: Record<string, string>;
  /** The log file, when `log` was set. */
  logFile: string | null;
  /** Log entries of the requests served so far, oldest first. */
  requests(): Promise<LogEntry[]>;
}

/** Starts the scripted model server on 127.0.0.1:0 for one test. */
export async function startModelServer(options: StartOptions): Promise<RunningModelServer> {
  const root = await Deno.makeTempDir({ prefix: "pitroom-model-server-" });
  try {
    let scenariosDir: string;
    if (typeof options.scenarios === "string") {
      scenariosDir = options.scenarios;
    } else {
      scenariosDir = join(root, "scenarios");
      await Deno.mkdir(scenariosDir);
      for (const [name, scenario] of Object.entries(options.scenarios)) {
        await Deno.writeTextFile(join(scenariosDir, `${name}.json`), JSON.stringify(scenario));
      }
    }
    const logFile = options.log ? join(root, "requests.jsonl") : null;
    const handler = createModelServer({
      scenariosDir,
      ...(logFile === null ? {} : { logFile }),
    });
    const stop = new AbortController();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen: () => {} },
      handler,
    );
    const port = server.addr.port;
    const url = `http://127.0.0.1:${port}`;
    const home = join(root, "home");
    const env = await prepareWorkerEnv(home, url, {
      scenarios: await listScenarios(scenariosDir),
    });
    return {
      url,
      port,
      scenariosDir,
      home,
      env,
      logFile,
      requests: () => Promise.resolve(handler.requests()),
      async [Symbol.asyncDispose]() {
        handler.close();
        stop.abort();
        await server.finished;
        await Deno.remove(root, { recursive: true });
      },
    };
  } catch (error) {
    await Deno.remove(root, { recursive: true });
    throw error;
  }
}
