/**
 * The dashboard on a real loopback port for browser tests and the benchmark: `createDashboardApp`
 * served by `Deno.serve` on 127.0.0.1 (a free port), with a fresh door; `link()` is an address
 * with a new one-time token (what `pitroom dash` prints); disposing ends the streams and the
 * server.
 */
import type { Engine } from "../../src/engine/mod.ts";
import { createDashboardApp } from "../../src/server/dash/app.ts";
import { Door } from "../../src/server/dash/door.ts";
import { KEY_HEADER, type SessionResponse } from "../../src/server/dash/api_types.ts";

/** A dashboard being served. */
export interface ServedDashboard extends AsyncDisposable {
  /** The plain address (it lets nobody in). */
  url: string;
  port: number;
  door: Door;
  /** The address with a new one-time token. */
  link(): Promise<string>;
  /** Comes in over HTTP as a browser does; answers the headers of its requests (cookie, key). */
  enter(): Promise<Record<string, string>>;
}

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Serves the dashboard of `engine` on 127.0.0.1 (`recent`: how many finished runs Live lists). */
export function serveDashboard(
  engine: Engine,
  options: { recent?: number; port?: number } = {},
): ServedDashboard {
  const stop = new AbortController();
  const door = new Door({ key: randomHex(32), now: Date.now, randomHex });
  let app: ReturnType<typeof createDashboardApp> | null = null;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {} },
    (req) => app!.fetch(req),
  );
  const port = server.addr.port;
  app = createDashboardApp(engine, {
    door,
    port,
    signal: stop.signal,
    ...(options.recent === undefined ? {} : { recent: options.recent }),
  });
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    port,
    door,
    link: async () => `${url}?token=${await door.mint()}`,
    async enter() {
      const res = await fetch(`${url}?token=${await door.mint()}`);
      await res.body?.cancel();
      const cookie = res.headers.get("set-cookie")?.split(";")[0] ?? "";
      const claim = await fetch(`${url}api/session`, {
        method: "POST",
        headers: { cookie, origin: url.slice(0, -1) },
      });
      if (!claim.ok) throw new Error(`not let in: ${claim.status} ${await claim.text()}`);
      const { key } = await claim.json() as SessionResponse;
      return { cookie, [KEY_HEADER]: key };
    },
    async [Symbol.asyncDispose]() {
      stop.abort();
      await server.shutdown();
    },
  };
}
