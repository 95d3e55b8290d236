/**
 * One dashboard per state dir, started on demand: `runDashboard` serves in this process
 * (`pitroom dash`), `startDetached` starts `pitroom dash --json` as a detached child or reuses
 * the live one (`--detach`), `stopDashboard` ends it (`--stop`), and `ensureDashboard` is what
 * the MCP server calls: the address, or undefined when the config turns it off or it cannot
 * start (a long run does not wait for one: launch.ts). Starting and stopping hold the state dir's
 * `dash.lock`, and the serving process holds `dash.life` for as long as it lives (record.ts), so
 * two callers at once end up with one dashboard, and a busy one is reused, never doubled. It
 * stops after its idle time without a request once no run is going. Every address handed out
 * carries a new one-time token (door.ts): minted in the serving process, or with the key of
 * `dash.key` for a dashboard that runs.
 */
import { createEngine } from "../../engine/mod.ts";
import { isFinal } from "../../engine/present.ts";
import { PitroomError, RefusedError } from "../../sys/errors.ts";
import type { Sys } from "../../sys/mod.ts";
import { TOKEN_HEADER } from "./api_types.ts";
import { mintToken } from "./door.ts";
import { START_MS } from "./launch.ts";
import {
  type DashRecord,
  holdLife,
  isHealthy,
  isServing,
  linkTo,
  liveDashboard,
  readDashKey,
  readDashRecord,
  removeDashRecord,
  withStartLock,
  writeDashRecord,
} from "./record.ts";
import { type Served, serveDashboard } from "./serve.ts";

/** Fifteen minutes: the default time without a request after which a dashboard stops. */
export const DEFAULT_IDLE_MS = 900_000;
/** Set in a detached dashboard's environment: its starter holds the lock. */
const LOCKED_ENV = "PITROOM_DASH_LOCKED";
/** How long a stopped dashboard may take to go. */
const STOP_MS = 10_000;

/** Options of serving or starting a dashboard. */
export interface DashOptions {
  /** Exactly this port. @default 7878 or the next free one */
  port?: number;
  /** @default the config's `dashIdle` (15m) */
  idleMs?: number;
}

/** A dashboard's address and whether it was running already. */
export interface DashAddress {
  /** The address with a one-time token: it lets one browser in. */
  address: string;
  pid: number;
  port: number;
  /** True when a dashboard was running already and is reused. */
  reused: boolean;
}

/** True while a run of the state dir (any repository's) is queued or running. */
async function runsGoing(sys: Sys): Promise<boolean> {
  const runs = await createEngine(sys).list({ recent: 0, all: true });
  return runs.some((r) => !isFinal(r.state));
}

/**
 * A record nobody's life lock stands behind is stale: removed, and when its address still
 * answers as its instance (a dashboard of an older Pitroom, which held no life lock), that
 * dashboard is asked to stop, so an upgrade does not leave one behind for its idle time.
 */
async function retireStale(sys: Sys): Promise<void> {
  const record = await readDashRecord(sys);
  if (record === null) return;
  if (await isHealthy(sys, record)) sys.runner.kill(record.pid, "SIGTERM");
  await removeDashRecord(sys, record.instance);
}

/** The live dashboard as an address to hand out, or null. */
async function reuse(sys: Sys): Promise<DashAddress | null> {
  const live = await liveDashboard(sys);
  if (live === null) return null;
  return { address: await linkTo(sys, live), pid: live.pid, port: live.port, reused: true };
}

/** Serves the dashboard here (or finds the live one: then `other` is set and nothing runs). */
export async function runDashboard(
  sys: Sys,
  options: DashOptions & { signal?: AbortSignal },
): Promise<{ served: Served } | { other: DashAddress }> {
  // A detached start holds the lock for its child (flock would make the child wait for it).
  const started = await withStartLock(sys, async () => {
    const other = await reuse(sys);
    if (other !== null) return { other };
    const life = await holdLife(sys);
    if (life === null) {
      // One holds the life lock and has no record: it is stopping, or starting elsewhere.
      const again = await reuse(sys);
      if (again !== null) return { other: again };
      throw new RefusedError(
        "dash_busy",
        "Another dashboard of this state dir is starting or stopping",
        {
          hint: "try again in a moment: `pitroom dash`",
        },
      );
    }
    try {
      await retireStale(sys);
      const served = serveDashboard(sys, {
        idleMs: options.idleMs ?? DEFAULT_IDLE_MS,
        keepWhile: () => runsGoing(sys),
        // Importing the history when someone comes makes the History tab quick, and a start
        // (3 s into runs, often as they finish and write the history) cost them nothing.
        onFirstRequest: () => void createEngine(sys).history.import().catch(() => undefined),
        ...(options.port === undefined ? {} : { port: options.port }),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      try {
        await writeDashRecord(sys, {
          schemaVersion: 1,
          pid: sys.pid,
          port: served.port,
          address: served.address,
          instance: served.instance,
          startedAt: sys.clock.now(),
        }, served.key);
      } catch (error) {
        await served.close();
        throw error;
      }
      return { served, life };
    } catch (error) {
      life.release();
      throw error;
    }
  }, { held: sys.env.get(LOCKED_ENV) === "1" });
  if ("other" in started) return started;
  const { served, life } = started;
  // It has stopped once its record is gone too; then it is no longer live.
  const finished = served.finished
    .then(() => removeDashRecord(sys, served.instance))
    .finally(() => life.release());
  return {
    served: {
      ...served,
      finished,
      close: async () => {
        await served.close();
        await finished;
      },
    },
  };
}

/** Starts a detached dashboard, or finds the live one; resolves with its address. */
export function startDetached(sys: Sys, options: DashOptions = {}): Promise<DashAddress> {
  return withStartLock(sys, () => spawnDetached(sys, options));
}

async function spawnDetached(sys: Sys, options: DashOptions): Promise<DashAddress> {
  const live = await reuse(sys);
  if (live !== null) return live;
  const argv = [
    ...sys.selfCommand(),
    "dash",
    "--json",
    // Without --idle the dashboard takes the config's.
    ...(options.idleMs === undefined ? [] : ["--idle", `${Math.round(options.idleMs / 1000)}s`]),
    ...(options.port === undefined ? [] : ["--port", String(options.port)]),
  ];
  const child = sys.runner.spawn(argv, {
    detached: true,
    stdout: "piped",
    stderr: "null",
    stdin: { kind: "null" },
    env: { ...sys.env.toObject(), PITROOM_STATE_DIR: sys.stateDir, [LOCKED_ENV]: "1" },
  });
  const reader = child.stdout!.pipeThrough(new TextDecoderStream()).getReader();
  const line = await firstLine(sys, reader, START_MS);
  child.unref();
  let started: { address?: string; pid?: number; port?: number; error?: string };
  try {
    started = JSON.parse(line ?? "{}");
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    started = {};
  }
  if (typeof started.address !== "string") {
    throw new RefusedError(
      "dash_failed",
      `The dashboard did not start${started.error ? `: ${started.error}` : ""}`,
      { hint: "run it in the foreground to see why: `pitroom dash`" },
    );
  }
  return {
    address: started.address,
    pid: started.pid ?? child.pid,
    port: started.port ?? 0,
    reused: false,
  };
}

/** Reads the first line of `reader` (null when it ends, is cancelled or the time runs out first). */
async function firstLine(
  sys: Sys,
  reader: ReadableStreamDefaultReader<string>,
  timeoutMs: number,
): Promise<string | null> {
  const timer = sys.clock.after(timeoutMs, () => void reader.cancel().catch(() => undefined));
  let text = "";
  try {
    while (!text.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    timer.cancel();
    await reader.cancel().catch(() => undefined);
  }
  const nl = text.indexOf("\n");
  return nl < 0 ? null : text.slice(0, nl);
}

/** Ends the live dashboard; resolves with what was stopped (null: none was running). */
export function stopDashboard(sys: Sys): Promise<DashRecord | null> {
  return withStartLock(sys, () => stopLive(sys));
}

async function stopLive(sys: Sys): Promise<DashRecord | null> {
  const record = await readDashRecord(sys);
  if (!(await isServing(sys))) {
    // Nothing serves: a record left behind is stale (a dashboard of an older Pitroom still
    // answering is stopped as well).
    if (record !== null) await retireStale(sys);
    return null;
  }
  if (record === null) return null;
  // Its stream ends when it stops: follow one (the owner's one request), then ask it to stop.
  const key = await readDashKey(sys);
  const headers: Record<string, string> = key?.instance === record.instance
    ? {
      [TOKEN_HEADER]: await mintToken(key.key, { now: sys.clock.now(), nonce: sys.randomHex(8) }),
    }
    : {};
  const controller = new AbortController();
  const timer = sys.clock.after(STOP_MS, () => controller.abort(new Error("timeout")));
  let told = false;
  try {
    const res = await fetch(`http://127.0.0.1:${record.port}/api/stream?recent=0`, {
      signal: controller.signal,
      headers,
    });
    told = sys.runner.kill(record.pid, "SIGTERM");
    if (res.body) { for await (const _ of res.body) { /* until it ends */ } }
  } catch (error) {
    if (!controller.signal.aborted && !(error instanceof TypeError)) throw error;
  } finally {
    timer.cancel();
  }
  // It did not answer (busy, or stopping already): the signal still ends it.
  if (!told) sys.runner.kill(record.pid, "SIGTERM");
  // Gone once its life lock is free (it lets it go after removing its record).
  const life = await holdLife(sys, { attempts: 200 });
  if (life === null) {
    throw new RefusedError("dash_stop", `The dashboard (pid ${record.pid}) did not stop`, {
      hint: `end it with \`kill ${record.pid}\``,
    });
  }
  try {
    await removeDashRecord(sys, record.instance);
  } finally {
    life.release();
  }
  return record;
}

/** Options of `ensureDashboard`. */
export interface EnsureOptions extends DashOptions {
  /** Told why the dashboard could not start (it never throws). */
  onError?(error: PitroomError): void;
}

/**
 * The live dashboard's address: started detached when none runs. Undefined when `"dash": false`
 * in the config (or `PITROOM_DASH=0`) turns it off, or when it could not start.
 */
export async function ensureDashboard(
  sys: Sys,
  options: EnsureOptions = {},
): Promise<string | undefined> {
  const { settings } = await createEngine(sys).settings();
  if (!settings.dash.value) return undefined;
  try {
    return (await startDetached(sys, options)).address;
  } catch (error) {
    if (!(error instanceof PitroomError)) throw error;
    options.onError?.(error);
    return undefined;
  }
}
