/**
 * The dashboard on a real loopback port for browser tests and the benchmark: `createDashboardApp`
 * served by `Deno.serve` on 127.0.0.1 (a free port), with a fresh secret; disposing ends the
 * streams and the server.
 */
import type { Engine } from "../../src/engine/mod.ts";
import { createDashboardApp } from "../../src/server/dash/app.ts";

/** A dashboard being served. */
export interface ServedDashboard extends AsyncDisposable {
  url: string;
  port: number;
  secret: string;
}

/** Serves the dashboard of `engine` on 127.0.0.1 (`recent`: how many finished runs Live lists). */
export function serveDashboard(engine: Engine, options: { recent?: number } = {}): ServedDashboard {
  const stop = new AbortController();
  const secret = crypto.randomUUID();
  let app: ReturnType<typeof createDashboardApp> | null = null;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => app!.fetch(req),
  );
  const port = server.addr.port;
  app = createDashboardApp(engine, {
    secret,
    port,
    signal: stop.signal,
    ...(options.recent === undefined ? {} : { recent: options.recent }),
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    secret,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await server.shutdown();
    },
  };
}
