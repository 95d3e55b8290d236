/**
 * The running dashboard's record in the state dir (`dash.json`: pid, port, address, instance,
 * start time; never the secret), the lock that lets one process at a time start or stop a
 * dashboard (`dash.lock`), and the health probe that tells a live dashboard from a stale record
 * (the recorded address answers `GET /api/health` with the recorded instance).
 */
import { writeJsonAtomic } from "../../engine/mod.ts";
import { join } from "../../sys/path.ts";
import type { Sys } from "../../sys/mod.ts";
import type { HealthResponse } from "./api_types.ts";

/** What `dash.json` holds. */
export interface DashRecord {
  schemaVersion: 1;
  pid: number;
  port: number;
  address: string;
  instance: string;
  startedAt: number;
}

/** How long the health probe waits for an answer. */
const PROBE_MS = 2_000;

function recordPath(sys: Sys): string {
  return join(sys.stateDir, "dash.json");
}

/** The recorded dashboard, or null. */
export async function readDashRecord(sys: Sys): Promise<DashRecord | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(recordPath(sys));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<DashRecord>;
    if (
      value.schemaVersion !== 1 || typeof value.port !== "number" ||
      typeof value.pid !== "number" || typeof value.address !== "string" ||
      typeof value.instance !== "string"
    ) return null;
    return value as DashRecord;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}

/** Records a dashboard that listens now. */
export async function writeDashRecord(sys: Sys, record: DashRecord): Promise<void> {
  await Deno.mkdir(sys.stateDir, { recursive: true, mode: 0o700 });
  await writeJsonAtomic(recordPath(sys), record);
}

/** Removes the record if it is still this instance's. */
export async function removeDashRecord(sys: Sys, instance: string): Promise<void> {
  const record = await readDashRecord(sys);
  if (record?.instance !== instance) return;
  await Deno.remove(recordPath(sys)).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

/** True when the recorded dashboard answers as itself. */
export async function isHealthy(sys: Sys, record: DashRecord): Promise<boolean> {
  const controller = new AbortController();
  const timer = sys.clock.after(PROBE_MS, () => controller.abort(new Error("timeout")));
  try {
    const res = await fetch(`http://127.0.0.1:${record.port}/api/health`, {
      signal: controller.signal,
    });
    if (!res.ok) {
      await res.body?.cancel();
      return false;
    }
    const body = await res.json() as Partial<HealthResponse>;
    return body.service === "pitroom-dash" && body.instance === record.instance;
  } catch (error) {
    // Nothing listens there (any more), or something else does, or it hangs.
    if (error instanceof TypeError || error instanceof SyntaxError || controller.signal.aborted) {
      return false;
    }
    throw error;
  } finally {
    timer.cancel();
  }
}

/** The live recorded dashboard, or null. */
export async function liveDashboard(sys: Sys): Promise<DashRecord | null> {
  const record = await readDashRecord(sys);
  return record !== null && (await isHealthy(sys, record)) ? record : null;
}

/**
 * Runs `fn` holding the start/stop lock (waiting while another process holds it); `held`: the
 * caller's starter holds it already.
 */
export async function withStartLock<T>(
  sys: Sys,
  fn: () => Promise<T>,
  options: { held?: boolean } = {},
): Promise<T> {
  if (options.held) return await fn();
  await Deno.mkdir(sys.stateDir, { recursive: true, mode: 0o700 });
  const file = await Deno.open(join(sys.stateDir, "dash.lock"), {
    read: true,
    write: true,
    create: true,
    mode: 0o600,
  });
  try {
    await file.lock(true);
    return await fn();
  } finally {
    // Closing the file releases the lock.
    file.close();
  }
}
