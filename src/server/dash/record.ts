/**
 * The running dashboard's files in the state dir: its record (`dash.json`: pid, port, address,
 * instance, start time; nothing that opens it), its key (`dash.key`, mode 0600: the start's key
 * the owner mints one-time tokens with; door.ts), the lock that lets one process at a time start
 * or stop a dashboard (`dash.lock`), and its life lock (`dash.life`): the serving process holds
 * it, exclusive, for as long as it lives, and the kernel lets it go when that process ends
 * however it ends (kill -9 too). A dashboard is live exactly while its life lock is held: no
 * probe over HTTP (a busy dashboard is not taken for a dead one and doubled) and no pid that
 * another process may have taken since. A record whose life lock nobody holds is stale.
 *
 * The light side of the dashboard: nothing here loads its server (a run asks whether one is
 * live, and for its address, through this module only).
 */
import { writeJsonAtomic } from "../../sys/atomic.ts";
import { mintToken } from "./door.ts";
import { join } from "../../sys/path.ts";
import { sleepOn, type Sys } from "../../sys/mod.ts";
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

/** What `dash.key` holds: the key of the start named by `instance`. */
export interface DashKey {
  schemaVersion: 1;
  instance: string;
  key: string;
}

/** A live dashboard: its record and its start's key. */
export interface LiveDashboard extends DashRecord {
  key: string;
}

function recordPath(sys: Sys): string {
  return join(sys.stateDir, "dash.json");
}

function keyPath(sys: Sys): string {
  return join(sys.stateDir, "dash.key");
}

function lifePath(sys: Sys): string {
  return join(sys.stateDir, "dash.life");
}

/** A held life lock: released when the dashboard has stopped (or by the kernel at its end). */
export interface LifeLock {
  release(): void;
}

/**
 * Takes the life lock for a dashboard about to serve, retrying briefly (a probe of `isServing`
 * holds it shared for an instant); null when a live dashboard holds it.
 */
export async function holdLife(
  sys: Sys,
  options: { attempts?: number } = {},
): Promise<LifeLock | null> {
  await Deno.mkdir(sys.stateDir, { recursive: true, mode: 0o700 });
  const file = await Deno.open(lifePath(sys), {
    read: true,
    write: true,
    create: true,
    mode: 0o600,
  });
  const attempts = options.attempts ?? 40;
  for (let i = 0; i < attempts; i++) {
    if (await file.tryLock(true)) {
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          file.unlockSync();
          file.close();
        },
      };
    }
    if (i + 1 < attempts) await sleepOn(sys.clock, 25);
  }
  file.close();
  return null;
}

/** True while a dashboard of this state dir serves (its process holds the life lock). */
export async function isServing(sys: Sys): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(lifePath(sys), { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  try {
    if (!(await file.tryLock(false))) return true;
    file.unlockSync();
    return false;
  } finally {
    file.close();
  }
}

/** The text of `path`, or null when it does not exist. */
async function readOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** The recorded dashboard, or null. */
export async function readDashRecord(sys: Sys): Promise<DashRecord | null> {
  const text = await readOrNull(recordPath(sys));
  if (text === null) return null;
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

/** The recorded key, or null (none, or not this project's shape). */
export async function readDashKey(sys: Sys): Promise<DashKey | null> {
  const text = await readOrNull(keyPath(sys));
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<DashKey>;
    if (
      value.schemaVersion !== 1 || typeof value.instance !== "string" ||
      typeof value.key !== "string"
    ) return null;
    return value as DashKey;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}

/** Records a dashboard that listens now: its key first (mode 0600), then its record. */
export async function writeDashRecord(
  sys: Sys,
  record: DashRecord,
  key: string,
): Promise<void> {
  await Deno.mkdir(sys.stateDir, { recursive: true, mode: 0o700 });
  const keyFile: DashKey = { schemaVersion: 1, instance: record.instance, key };
  await writeJsonAtomic(keyPath(sys), keyFile);
  await writeJsonAtomic(recordPath(sys), record);
}

async function removeIfThere(path: string): Promise<void> {
  await Deno.remove(path).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

/** Removes the record and the key if they are still this instance's. */
export async function removeDashRecord(sys: Sys, instance: string): Promise<void> {
  if ((await readDashKey(sys))?.instance === instance) await removeIfThere(keyPath(sys));
  const record = await readDashRecord(sys);
  if (record?.instance !== instance) return;
  await removeIfThere(recordPath(sys));
}

/** The address of `live` with a new one-time token: it lets one browser in. */
export async function linkTo(sys: Sys, live: LiveDashboard): Promise<string> {
  const token = await mintToken(live.key, { now: sys.clock.now(), nonce: sys.randomHex(8) });
  return `${live.address}?token=${token}`;
}

/**
 * True when the recorded dashboard answers as itself (`GET /api/health` with the recorded
 * instance): what `--stop` follows, and how a dashboard of an older Pitroom (no life lock) is
 * told from a dead one.
 */
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

/**
 * The live dashboard with its key, or null: none holds the life lock, or its record and key are
 * not (yet, or any more) there. Files and a lock only: no request, so it costs a run nothing.
 */
export async function liveDashboard(sys: Sys): Promise<LiveDashboard | null> {
  if (!(await isServing(sys))) return null;
  const record = await readDashRecord(sys);
  if (record === null) return null;
  const key = await readDashKey(sys);
  return key?.instance === record.instance ? { ...record, key: key.key } : null;
}

/** The address of the live dashboard with a new one-time token, or null when none runs. */
export async function liveLink(sys: Sys): Promise<string | null> {
  const live = await liveDashboard(sys);
  return live === null ? null : await linkTo(sys, live);
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
