/**
 * Serving the dashboard on 127.0.0.1: the port (7878, else the next free one, unless one was
 * asked for), a new key (the door's, for one-time tokens) and instance id at every start, the
 * idle timer (it runs only while no request is answered and no stream is open; when it runs out
 * while a run is going, it starts again) and a clean stop (streams end, then the listener).
 */
import { createEngine } from "../../engine/mod.ts";
import { RefusedError } from "../../sys/errors.ts";
import type { Sys, Timer } from "../../sys/mod.ts";
import { createDashboardApp } from "./app.ts";
import { Door } from "./door.ts";

/** The port tried first. */
export const DEFAULT_PORT = 7878;
/** How many ports after the default are tried when it is taken. */
const PORT_TRIES = 20;

/** Options of `serveDashboard`. */
export interface ServeOptions {
  /** Listen on exactly this port (refused when taken). @default 7878 or the next free one */
  port?: number;
  /** Without `port`: the first port tried (tests). @default 7878 */
  firstPort?: number;
  /** Stop after this long without a request. */
  idleMs: number;
  /** Asked when the idle time runs out: while it resolves true (a run is going), it runs again. */
  keepWhile?: () => Promise<boolean>;
  /** Called once, when the first request comes. */
  onFirstRequest?: () => void;
  /** Aborting stops the server. */
  signal?: AbortSignal;
}

/** A listening dashboard. */
export interface Served {
  /** The plain address (it opens nothing by itself: `link()` does). */
  address: string;
  port: number;
  /** Tells this start apart from any other (the health answer carries it; not a secret). */
  instance: string;
  /** This start's key: whoever holds it can mint one-time tokens (`dash.key` keeps it). */
  key: string;
  /** The address with a new one-time token: it lets one browser in. */
  link(): Promise<string>;
  /** Resolves once the server has stopped (idle, aborted or closed). */
  finished: Promise<void>;
  /** Why it stopped: `idle`, `stopped`. */
  reason(): string | null;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 and serves the dashboard over `sys`'s state dir. */
export function serveDashboard(sys: Sys, options: ServeOptions): Served {
  const stop = new AbortController();
  const key = sys.randomHex(32);
  const instance = sys.randomHex(8);
  const door = new Door({ key, now: () => sys.clock.now(), randomHex: (n) => sys.randomHex(n) });
  let busy = 0;
  let idle: Timer | undefined;
  let reason: string | null = null;
  const shutdown = (why: string) => {
    reason ??= why;
    stop.abort(new Error(why));
  };
  const armIdle = () => {
    idle?.cancel();
    idle = sys.clock.after(options.idleMs, onIdle);
  };
  const onIdle = async () => {
    idle = undefined;
    let keep = false;
    try {
      keep = (await options.keepWhile?.()) ?? false;
    } catch {
      // Runs that cannot be listed keep nothing going: it stops as it would without them.
    }
    // Meanwhile a request may have come (its end arms the timer again) or it was stopped.
    if (busy > 0 || idle !== undefined || stop.signal.aborted) return;
    if (keep) armIdle();
    else shutdown("idle");
  };
  const engine = createEngine(sys);
  let firstRequest = options.onFirstRequest;
  let handler: ((req: Request) => Response | Promise<Response>) | null = null;
  const server = listen(
    options.port,
    options.firstPort ?? DEFAULT_PORT,
    stop.signal,
    (req) => handler!(req),
  );
  const port = server.addr.port;
  const app = createDashboardApp(engine, {
    door,
    port,
    health: { instance, pid: sys.pid },
    signal: stop.signal,
    clock: sys.clock,
    activity: {
      begin() {
        if (firstRequest) {
          firstRequest();
          firstRequest = undefined;
        }
        busy++;
        idle?.cancel();
        idle = undefined;
        let ended = false;
        return () => {
          if (ended) return;
          ended = true;
          if (--busy === 0 && !stop.signal.aborted) armIdle();
        };
      },
    },
  });
  handler = (req) => app.fetch(req);
  armIdle();
  const onAbort = () => shutdown("stopped");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const finished = server.finished.finally(() => {
    idle?.cancel();
    options.signal?.removeEventListener("abort", onAbort);
  });
  const address = `http://127.0.0.1:${port}/`;
  return {
    address,
    port,
    instance,
    key,
    link: async () => `${address}?token=${await door.mint()}`,
    finished,
    reason: () => reason,
    async close() {
      shutdown("stopped");
      await finished;
    },
  };
}

function listen(
  port: number | undefined,
  first: number,
  signal: AbortSignal,
  handler: (req: Request) => Response | Promise<Response>,
): Deno.HttpServer<Deno.NetAddr> {
  const ports = port === undefined
    ? Array.from({ length: PORT_TRIES }, (_, i) => first + i)
    : [port];
  for (const p of ports) {
    try {
      return Deno.serve({ hostname: "127.0.0.1", port: p, signal, onListen() {} }, handler);
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    }
  }
  throw new RefusedError(
    "port_taken",
    port === undefined
      ? `Cannot serve the dashboard: ports ${first}-${first + PORT_TRIES - 1} are taken`
      : `Cannot serve the dashboard: port ${port} is taken`,
    { hint: "choose another with `pitroom dash --port N`" },
  );
}
