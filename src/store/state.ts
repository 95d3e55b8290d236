/**
 * The state dir, held: its paths and its run records, made once by whoever binds Pitroom to a
 * state dir (the engine instance, the host) and handed down with `sys`, so nothing below rebuilds
 * them from `sys.stateDir`.
 */
import type { Sys } from "../sys/mod.ts";
import { type RunPaths, type StatePaths, statePaths } from "./paths.ts";
import type { RunRecord } from "./record.ts";
import {
  createRunDir,
  listRunIds,
  loadRecord,
  readRecord,
  readRecordChecked,
  readRecordCheckedSync,
  type RecordRead,
  writeRecord,
} from "./runs.ts";

/** The run records of one state dir. */
export class Runs {
  constructor(private readonly paths: StatePaths) {}

  /** The files of a run's folder. */
  folder(id: string): RunPaths {
    return this.paths.run(id);
  }

  /** A run's record, or null when there is none or it cannot be read. */
  read(id: string): Promise<RunRecord | null> {
    return readRecord(this.paths, id);
  }

  /** A run's record; a usage error when there is no such run, `DamagedRecord` when unreadable. */
  load(id: string): Promise<RunRecord> {
    return loadRecord(this.paths, id);
  }

  /** A run's record, or why there is none (no folder, or what is wrong with its `run.json`). */
  checked(id: string): Promise<RecordRead> {
    return readRecordChecked(this.paths, id);
  }

  /** `checked`, synchronously (a scan over many folders). */
  checkedSync(id: string): RecordRead {
    return readRecordCheckedSync(this.paths, id);
  }

  /** Writes a record atomically. */
  write(record: RunRecord): Promise<void> {
    return writeRecord(this.paths, record);
  }

  /** Every run id, oldest first. */
  ids(): Promise<string[]> {
    return listRunIds(this.paths);
  }

  /** Creates a run's folder; refuses when it exists. */
  create(id: string): Promise<void> {
    return createRunDir(this.paths, id);
  }
}

/** One state dir, held. */
export interface State {
  readonly paths: StatePaths;
  readonly runs: Runs;
}

/** `Sys` with its state dir held: what the engine and the store's writers are handed. */
export interface HeldSys extends Sys {
  readonly state: State;
}

/** Holds `sys`'s state dir (once: a `sys` that holds it already is returned as it is). */
export function holdState(sys: Sys): HeldSys {
  const held = (sys as Partial<HeldSys>).state;
  if (held !== undefined && held.paths.root === sys.stateDir) return sys as HeldSys;
  const paths = statePaths(sys.stateDir);
  return { ...sys, state: { paths, runs: new Runs(paths) } };
}
