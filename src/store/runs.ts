/**
 * Reading, writing and listing run records in the state dir.
 */
import { RefusedError, UsageError } from "../sys/errors.ts";
import { readJsonOrNull, writeJsonAtomic } from "./atomic.ts";
import { isRunId, type StatePaths } from "./paths.ts";
import { isRunRecord, type RunRecord } from "./record.ts";

/** Writes a record atomically. */
export async function writeRecord(paths: StatePaths, record: RunRecord): Promise<void> {
  await writeJsonAtomic(paths.run(record.id).record, record);
}

/** Reads a record, or null when the run does not exist or its record is unreadable. */
export async function readRecord(paths: StatePaths, id: string): Promise<RunRecord | null> {
  let value: unknown;
  try {
    value = await readJsonOrNull(paths.run(id).record);
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
  return isRunRecord(value) ? value : null;
}

/** Reads a record or throws a usage error naming the run. */
export async function loadRecord(paths: StatePaths, id: string): Promise<RunRecord> {
  const record = await readRecord(paths, id);
  if (record === null) {
    throw new UsageError(`No run "${id}"`, { hint: "list runs with `pitroom ls`" });
  }
  return record;
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Run ids in the state dir, oldest first (ids sort by time). */
export function listRunIds(paths: StatePaths): Promise<string[]> {
  const ids: string[] = [];
  try {
    // Sync on purpose: one pass over a large folder without an async op per entry.
    for (const entry of Deno.readDirSync(paths.runs)) {
      if (isRunId(entry.name)) ids.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return Promise.resolve([]);
    throw error;
  }
  return Promise.resolve(ids.sort());
}

/**
 * Resolves what a user typed to a run id: a full id, a unique suffix or prefix, or `last` (the
 * newest run that is not an audit: an audit started after a run never takes its place).
 */
export async function resolveRunId(paths: StatePaths, typed: string): Promise<string> {
  // A full id names only itself (ids have one length): no need to list a large folder.
  if (isRunId(typed) && (await isDir(paths.run(typed).dir))) return typed;
  const ids = await listRunIds(paths);
  if (typed === "last") {
    let last: string | undefined;
    for (let i = ids.length - 1; i >= 0 && last === undefined; i--) {
      if ((await readRecord(paths, ids[i]!))?.auditOf === undefined) last = ids[i];
    }
    if (last === undefined) {
      throw new UsageError("No runs yet", { hint: 'start one with `pitroom run "task"`' });
    }
    return last;
  }
  if (ids.includes(typed)) return typed;
  const matches = ids.filter((id) => id.endsWith(typed) || id.startsWith(typed));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new UsageError(`Run "${typed}" is ambiguous: ${matches.length} runs match`, {
      hint: "give more of the id",
    });
  }
  throw new UsageError(`No run "${typed}"`, { hint: "list runs with `pitroom ls`" });
}

/** Creates the run folder; refuses when it exists. */
export async function createRunDir(paths: StatePaths, id: string): Promise<void> {
  await Deno.mkdir(paths.runs, { recursive: true, mode: 0o700 });
  try {
    await Deno.mkdir(paths.run(id).dir, { mode: 0o700 });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      throw new RefusedError("run_exists", `Run "${id}" exists already`);
    }
    throw error;
  }
}
