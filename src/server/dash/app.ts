/**
 * `createDashboardApp(engine, options)`: the dashboard as a Hono app that does not listen
 * (serve.ts binds it to 127.0.0.1; tests call `app.request()`). Every request passes the Host
 * guard and the door (guards.ts: a one-time token opens a session; the page needs its cookie,
 * the API its key too); the page and its assets are served from memory; the JSON API and the
 * stream read through the engine only; a POST needs the page's Origin. README.md has the routes.
 */
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { Clock } from "../../sys/mod.ts";
import { realClock } from "../../sys/real.ts";
import type { Engine } from "../../engine/mod.ts";
import { PitroomError } from "../../sys/errors.ts";
import { apiError, statusOf } from "./errors.ts";
import { cookieName, doorGuard, hostGuard, originGuard } from "./guards.ts";
import type { Door } from "./door.ts";
import { DOOR_JS, FRESH_HINT } from "./door_pages.ts";
import { getCookie } from "hono/cookie";
import { CSP, FAVICON, loadPage, type Page } from "./page.ts";
import { decodeCursor } from "./cursor.ts";
import { Connection } from "./stream.ts";
import type { HealthResponse, SessionResponse } from "./api_types.ts";
import { apiRoutes } from "./routes.ts";

/** Tells the server a request is being answered (the idle timer waits while any is). */
export interface Activity {
  /** A request began; call the result when its answer is complete (a stream: when it ends). */
  begin(): () => void;
}

/** Options of `createDashboardApp`. */
export interface DashboardOptions {
  /** Who may come in (door.ts): the tokens, sessions and keys of this start. */
  door: Door;
  /** The port the server listens on (a request must name it in its Host). */
  port: number;
  /** What `GET /api/health` says: this start's id (not a secret) and the server's pid. */
  health?: { instance: string; pid: number };
  /** Aborting ends every open stream (the server is stopping). */
  signal?: AbortSignal;
  /** Told of every request. */
  activity?: Activity;
  /** Timers (the stream's keep-alive). @default the real clock */
  clock?: Clock;
  /** How many finished runs the Live tab gets. @default 50 */
  recent?: number;
  /** The page's files (tests); @default the embedded ui/dist/ */
  page?: { js?: string; css?: string };
}

/** A stream's comment line this often keeps proxies and the browser from giving up on it. */
const KEEPALIVE_MS = 25_000;

/** The dashboard app over `engine`. */
export function createDashboardApp(engine: Engine, options: DashboardOptions): Hono {
  const app = new Hono();
  const clock = options.clock ?? realClock;
  const recent = options.recent ?? 50;
  let page: Promise<Page> | null = null;
  const pageOnce = () => (page ??= loadPage(options.page ?? {}));

  app.use("*", async (c, next) => {
    // A stream tells the activity itself, when it ends.
    const done = c.req.path === "/api/stream" ? undefined : options.activity?.begin();
    try {
      await next();
    } finally {
      done?.();
    }
    c.header("Content-Security-Policy", CSP);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cross-Origin-Resource-Policy", "same-origin");
  });
  app.use("*", hostGuard(options.port));
  app.use("*", doorGuard(options.door, options.port));
  app.post("*", originGuard());

  app.onError((error, c) => {
    if (error instanceof PitroomError) {
      return apiError(c, statusOf(error), error.code, error.message, error.hint);
    }
    return apiError(c, 500, "internal", `The dashboard failed: ${error.message}`);
  });
  app.notFound((c) => apiError(c, 404, "not_found", `No route "${c.req.method} ${c.req.path}"`));

  app.get("/", async (c) => {
    const p = await pageOnce();
    c.header("Cache-Control", "no-store");
    return c.html(p.html(options.door.unclaimed(getCookie(c, cookieName(options.port)))));
  });
  app.get("/door.js", (c) => {
    c.header("Cache-Control", "no-store");
    c.header("Content-Type", "text/javascript; charset=utf-8");
    return c.body(DOOR_JS);
  });
  app.get("/favicon.svg", (c) => {
    c.header("Cache-Control", "public, max-age=86400");
    c.header("Content-Type", "image/svg+xml");
    return c.body(FAVICON);
  });
  app.post("/api/session", (c) => {
    c.header("Cache-Control", "no-store");
    const key = options.door.claim(getCookie(c, cookieName(options.port)));
    if (key === null) {
      return apiError(
        c,
        409,
        "claimed",
        "This browser's pass was claimed already (the page keeps it)",
        FRESH_HINT,
      );
    }
    return c.json({ key } satisfies SessionResponse);
  });
  for (const name of ["js", "css"] as const) {
    app.get(`/app.${name}`, async (c) => {
      const asset = (await pageOnce())[name];
      const etag = `"${asset.hash}"`;
      c.header("ETag", etag);
      c.header(
        "Cache-Control",
        c.req.query("v") === asset.hash ? "public, max-age=31536000, immutable" : "no-cache",
      );
      if (c.req.header("if-none-match") === etag) return c.body(null, 304);
      c.header("Content-Type", asset.type);
      return c.body(asset.body);
    });
  }

  app.get("/api/health", (c) => {
    const body: HealthResponse = {
      service: "pitroom-dash",
      instance: options.health?.instance ?? "",
      pid: options.health?.pid ?? 0,
    };
    c.header("Cache-Control", "no-store");
    return c.json(body);
  });
  app.route("/api", apiRoutes(engine, { recent, now: () => clock.now() }));

  app.get("/api/stream", (c) => {
    const cursor = decodeCursor(c.req.header("last-event-id") ?? c.req.query("after"));
    const wanted = Number(c.req.query("recent") ?? recent);
    const connection = new Connection(engine, {
      cursor,
      recent: Number.isInteger(wanted) && wanted >= 0 && wanted <= 500 ? wanted : recent,
      now: () => clock.now(),
    });
    const done = options.activity?.begin();
    return streamSSE(c, async (stream) => {
      const close = () => void connection.close();
      options.signal?.addEventListener("abort", close, { once: true });
      stream.onAbort(close);
      if (options.signal?.aborted) close();
      const keepalive = clock.every(KEEPALIVE_MS, () => void stream.write(": keep-alive\n\n"));
      try {
        // A failed start ends the messages; its error is thrown once they have ended.
        let failed: { error: unknown } | null = null;
        const opened = connection.open().catch(async (error) => {
          failed = { error };
          await connection.close();
        });
        for await (const m of connection.messages()) {
          if (stream.aborted) break;
          await stream.writeSSE(m);
        }
        await opened;
        if (failed !== null) throw (failed as { error: unknown }).error;
      } finally {
        keepalive.cancel();
        options.signal?.removeEventListener("abort", close);
        await connection.close();
        done?.();
      }
    }, async () => {});
  });
  return app;
}
