/**
 * The host's inbox (`host/inbox/` in the state dir): a background run is handed to the host as
 * `<run>.run` (who started it: environment, directory, config file), and a stop request as
 * `<run>.stop`. The host watches the folder; both files are removed once it has acted on them.
 * Entries carry the starter's environment (API keys among it), so they are owner-only.
 */
import { join } from "../../sys/path.ts";
import { readJsonOrNull, writeJsonAtomic } from "../../sys/atomic.ts";
import type { StatePaths } from "../../store/paths.ts";
import { isRunId } from "../../store/paths.ts";

/** The current inbox entry format. */
export const ENTRY_SCHEMA = 1;

/** A run handed to the host. */
export interface HostEntry {
  schemaVersion: number;
  run: string;
  /** The environment of the command that started the run: its workers inherit it. */
  env: Record<string, string>;
  /** The directory it was started in. */
  cwd: string;
  /** The config file it read (maxParallel and limits come from there). */
  configPath: string;
  /** When it was handed over, and its place among the runs handed over with it. */
  at?: number;
  seq?: number;
}

/** Orders entries as they were handed over (the queue is FIFO). */
export function byHandover(a: HostEntry, b: HostEntry): number {
  return (a.at ?? 0) - (b.at ?? 0) || (a.seq ?? 0) - (b.seq ?? 0) || a.run.localeCompare(b.run);
}

/** What the inbox holds now. */
export interface InboxListing {
  /** Runs waiting to be hosted, oldest first. */
  runs: string[];
  /** Runs asked to stop. */
  stops: string[];
}

function entryPath(paths: StatePaths, run: string): string {
  return join(paths.host.inbox, `${run}.run`);
}

function stopPath(paths: StatePaths, run: string): string {
  return join(paths.host.inbox, `${run}.stop`);
}

async function ensureInbox(paths: StatePaths): Promise<void> {
  await Deno.mkdir(paths.host.inbox, { recursive: true, mode: 0o700 });
}

/** Hands a run to the host. */
export async function putEntry(paths: StatePaths, entry: HostEntry): Promise<void> {
  await ensureInbox(paths);
  await writeJsonAtomic(entryPath(paths, entry.run), entry);
}

/** Asks the host to stop a run (queued in the inbox or running). */
export async function putStop(paths: StatePaths, run: string): Promise<void> {
  await ensureInbox(paths);
  await Deno.writeTextFile(stopPath(paths, run), "", { mode: 0o600 });
}

/** Lists the inbox. */
export async function listInbox(paths: StatePaths): Promise<InboxListing> {
  const runs: string[] = [];
  const stops: string[] = [];
  try {
    for await (const entry of Deno.readDir(paths.host.inbox)) {
      const [id, kind] = entry.name.split(".");
      if (id === undefined || !isRunId(id)) continue;
      if (kind === "run") runs.push(id);
      else if (kind === "stop") stops.push(id);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return { runs: runs.sort(), stops };
}

/** True while the run waits in the inbox. */
export async function isWaiting(paths: StatePaths, run: string): Promise<boolean> {
  try {
    await Deno.lstat(entryPath(paths, run));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

function isEntry(value: unknown): value is HostEntry {
  if (typeof value !== "object" || value === null) return false;
  const e = value as Partial<HostEntry>;
  return typeof e.run === "string" && typeof e.cwd === "string" &&
    typeof e.configPath === "string" && typeof e.env === "object" && e.env !== null;
}

/** Takes a run out of the inbox: its entry, or null when it is gone or unreadable. */
export async function takeEntry(paths: StatePaths, run: string): Promise<HostEntry | null> {
  let value: unknown;
  try {
    value = await readJsonOrNull(entryPath(paths, run));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    value = null;
  }
  await dropFile(entryPath(paths, run));
  return isEntry(value) ? value : null;
}

/** Removes a stop request. */
export async function dropStop(paths: StatePaths, run: string): Promise<void> {
  await dropFile(stopPath(paths, run));
}

async function dropFile(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
