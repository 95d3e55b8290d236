/**
 * `history import`: (re)indexes every finished run found in the run folders. Idempotent: a run
 * already in the history is replaced by what its folder says now. Runs whose folders were
 * cleaned stay in the history untouched, and so does what a damaged file can no longer give: a
 * run whose run.json is damaged keeps its row, one whose events file or patch is keeps its
 * steps or diff (files.ts). Every damaged file is listed in the result.
 */
import type { HeldSys } from "../state.ts";
import type { DatabaseSync } from "node:sqlite";
import { isFinal } from "../record.ts";
import { metaSet } from "./db.ts";
import { type DamagedFile, readRunFolder } from "./files.ts";
import { type RunFiles, RunWriter, writeReturned } from "./write.ts";
import { handoversSize, readHandoversSync } from "../returned.ts";

/** Runs written per transaction. */
const BATCH = 200;

/** What an import did. */
export interface ImportResult {
  /** Finished runs indexed. */
  indexed: number;
  /** Runs still queued or running (indexed when they finish). */
  live: number;
  /** Folders without a readable record. */
  unreadable: number;
  /** The damaged files found (a record, an events file, a patch), one entry each. */
  damaged: DamagedFile[];
  ms: number;
}

/** Indexes every finished run of the state dir into `db`. */
export async function importRuns(sys: HeldSys, db: DatabaseSync): Promise<ImportResult> {
  const started = sys.clock.now();
  const paths = sys.state.paths;
  const writer = new RunWriter(db);
  const { gunzipSync } = await import("node:zlib");
  const gunzip = (bytes: Uint8Array) => gunzipSync(bytes);
  const result: ImportResult = { indexed: 0, live: 0, unreadable: 0, damaged: [], ms: 0 };
  let batch: RunFiles[] = [];
  for (const id of await sys.state.runs.ids()) {
    // Synchronous reads where it can: one folder after another, without an async op per file.
    const { files, damage } = await readRunFolder(paths, id, gunzip);
    if (files === null) {
      if (damage !== null) {
        result.unreadable++;
        result.damaged.push(damage);
      }
    } else if (!isFinal(files.record.state)) result.live++;
    else {
      batch.push(files);
      result.damaged.push(...(files.damaged ?? []));
    }
    if (batch.length >= BATCH) {
      writer.write(batch);
      result.indexed += batch.length;
      batch = [];
    }
  }
  writer.write(batch);
  result.indexed += batch.length;
  metaSet(db, "imported_at", String(sys.clock.now()));
  // Table statistics for the query planner (cheap; it analyzes only what changed enough).
  db.exec("PRAGMA optimize");
  result.ms = sys.clock.now() - started;
  return result;
}

/**
 * Indexes the runs marked pending because their indexing failed when they finished; each
 * marker goes once its run is written (or its folder is gone). Returns how many were indexed.
 */
export async function indexPending(sys: HeldSys, db: DatabaseSync): Promise<number> {
  const paths = sys.state.paths;
  let ids: string[];
  try {
    ids = [...Deno.readDirSync(paths.historyPending)].map((entry) => entry.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
  if (ids.length === 0) return 0;
  const { gunzipSync } = await import("node:zlib");
  const gunzip = (bytes: Uint8Array) => gunzipSync(bytes);
  const batch: RunFiles[] = [];
  const done: string[] = [];
  // What was handed over of each run before it was read: one appended meanwhile saw the mark
  // and left it to this indexing (store/history/mod.ts indexReturned).
  const handed = new Map(ids.map((id) => [id, handoversSize(paths, id)]));
  for (const id of ids) {
    // A mark left by `indexLater` holds the record as it ended: the row keeps it even where
    // `run.json` was damaged since.
    let spare: string | undefined;
    try {
      spare = await Deno.readTextFile(`${paths.historyPending}/${id}`);
    } catch {
      spare = undefined;
    }
    const { files } = await readRunFolder(paths, id, gunzip, spare);
    if (files !== null && !isFinal(files.record.state)) continue;
    if (files !== null) batch.push(files);
    done.push(id);
  }
  new RunWriter(db).write(batch);
  for (const id of done) {
    await Deno.remove(`${paths.historyPending}/${id}`).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
  for (const files of batch) {
    const id = files.record.id;
    if (handoversSize(paths, id) === handed.get(id)) continue;
    writeReturned(db, id, () => readHandoversSync(paths, id));
  }
  return batch.length;
}
