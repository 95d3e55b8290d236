/**
 * Reading, writing and listing run records in the state dir.
 */
import { DamagedRecord, RefusedError, UsageError } from "../sys/errors.ts";
import { writeJsonAtomic } from "../sys/atomic.ts";
import { isRunId, type StatePaths } from "./paths.ts";
import { recordProblem, type RunRecord } from "./record.ts";
import { readHandovers, withHandovers } from "./returned.ts";

/** Writes a record atomically. */
export async function writeRecord(paths: StatePaths, record: RunRecord): Promise<void> {
  await writeJsonAtomic(paths.run(record.id).record, record);
}

/** What reading a run's record found: the record, or why there is none. */
export type RecordRead =
  | { record: RunRecord; damage?: undefined }
  /** `damage` is null when there is no such run (no folder), else what is wrong with run.json. */
  | { record: null; damage: string | null };

/**
 * Reads a run's record, telling a run that does not exist from one whose `run.json` is missing
 * (a folder without it), empty, cut short, not JSON, not a record or another run's. A finished
 * run's receipt comes with what was handed over of it (store/returned.ts).
 */
export async function readRecordChecked(paths: StatePaths, id: string): Promise<RecordRead> {
  let text: string;
  try {
    text = await Deno.readTextFile(paths.run(id).record);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return { record: null, damage: (await isDir(paths.run(id).dir)) ? "missing" : null };
  }
  const read = parseRecordText(text, id);
  // A finished run's receipt says what was handed over of it (returned.jsonl).
  if (read.record?.receipt === undefined) return read;
  return { record: withHandovers(read.record, await readHandovers(paths, id)) };
}

/**
 * `readRecordChecked`, synchronously: for a scan over many folders (resolving `last` among one
 * repository's runs), where an async op per record would cost several times the read. What was
 * handed over of a run is not read (a scan picks runs, it does not report them).
 */
export function readRecordCheckedSync(paths: StatePaths, id: string): RecordRead {
  let text: string;
  try {
    text = Deno.readTextFileSync(paths.run(id).record);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    let there = false;
    try {
      there = Deno.statSync(paths.run(id).dir).isDirectory;
    } catch (statError) {
      if (!(statError instanceof Deno.errors.NotFound)) throw statError;
    }
    return { record: null, damage: there ? "missing" : null };
  }
  return parseRecordText(text, id);
}

/** A `run.json`'s text as a record, or what is wrong with it. */
export function parseRecordText(text: string, id: string): RecordRead {
  if (text.trim() === "") return { record: null, damage: "empty" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return { record: null, damage: "cut short or not JSON" };
  }
  const problem = recordProblem(value);
  if (problem !== null) return { record: null, damage: problem };
  const record = value as RunRecord;
  if (record.id !== id) return { record: null, damage: `it names another run, "${record.id}"` };
  return { record };
}

/** Reads a record, or null when the run does not exist or its record is unreadable. */
export async function readRecord(paths: StatePaths, id: string): Promise<RunRecord | null> {
  return (await readRecordChecked(paths, id)).record;
}

/**
 * Reads a record; throws a usage error naming the run when there is none, and `DamagedRecord`
 * when its folder is there but its `run.json` cannot be read.
 */
export async function loadRecord(paths: StatePaths, id: string): Promise<RunRecord> {
  const read = await readRecordChecked(paths, id);
  if (read.record !== null) return read.record;
  if (read.damage !== null) throw damagedRunJson(id, read.damage);
  throw new UsageError(`No run "${id}"`, { hint: "list runs with `pitroom ls`" });
}

/** The error of a damaged `run.json` (what still works is the engine's to add). */
export function damagedRunJson(id: string, damage: string): DamagedRecord {
  return new DamagedRecord({ run: id, file: "run.json", detail: damage });
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
