/**
 * `deno task model-server --scenarios DIR [--port 0] [--log FILE] [--env-file FILE]`: serves the
 * scripted model server on 127.0.0.1, optionally prepares a private worker home and writes its
 * env as `export` lines, prints `listening http://127.0.0.1:PORT` once ready, and stops cleanly
 * on SIGINT or SIGTERM.
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { prepareWorkerEnv, writeEnvFile } from "./env_file.ts";
import { listScenarios } from "./scenario.ts";
import { createModelServer } from "./server.ts";

const USAGE =
  "usage: deno task model-server --scenarios DIR [--port 0] [--log FILE] [--env-file FILE]";

/** Runs the server until a signal; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        scenarios: { type: "string" },
        port: { type: "string", default: "0" },
        log: { type: "string" },
        "env-file": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`model-server: ${error instanceof Error ? error.message : String(error)}`);
    console.error(USAGE);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const port = Number(values.port);
  if (values.scenarios === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(USAGE);
    return 2;
  }
  const scenariosDir = resolve(values.scenarios);
  try {
    if (!(await Deno.stat(scenariosDir)).isDirectory) throw new Deno.errors.NotFound();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    console.error(`model-server: scenarios dir not found: "${scenariosDir}"`);
    return 2;
  }
  const handler = createModelServer({
    scenariosDir,
    ...(values.log === undefined ? {} : { logFile: resolve(values.log) }),
  });
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, signal: stop.signal, onListen: () => {} },
    handler,
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  let home: string | null = null;
  const onSignal = () => {
    handler.close();
    stop.abort();
  };
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    if (values["env-file"] !== undefined) {
      home = await Deno.makeTempDir({ prefix: "pitroom-worker-home-" });
      const env = await prepareWorkerEnv(home, url, {
        scenarios: await listScenarios(scenariosDir),
      });
      await writeEnvFile(resolve(values["env-file"]), env);
    }
    console.log(`listening ${url}`);
    await server.finished;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
    if (home !== null) await Deno.remove(home, { recursive: true });
  }
  return 0;
}

if (import.meta.main) {
  Deno.exitCode = await main(Deno.args);
}
