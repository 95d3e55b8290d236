/**
 * `engine.history` and the savings: the finished runs as history.db keeps them (opened, imported
 * and repaired on demand by history/ready.ts; node:sqlite loads only when asked).
 */
import type { HeldSys } from "../store/state.ts";
import type { DatabaseSync } from "node:sqlite";
import type { CleanPlan, CleanResult } from "./runs/clean.ts";
import type { ImportResult } from "../store/history/import.ts";
import type { KeptRun } from "./runs/history_copy.ts";
import type { Preparation } from "../store/history/ready.ts";
import type { SearchFilter, SearchHit, SearchOptions } from "./history/search.ts";
import type { Stats } from "./history/stats.ts";
import { exists, hasEntries } from "../sys/fs.ts";
import { UsageError } from "../sys/errors.ts";
import { reconcile } from "./host/liveness.ts";
import type { Scope } from "./core/scope.ts";

/** Options of the history's readers. */
export interface HistoryOptions {
  /** Told when opening the history imported runs or repaired the file. */
  onPrepared?(prep: Preparation): void;
}

/** A period: the runs that ended since `since` (ms), or all of them for null. */
export interface Period {
  since: number | null;
}

const DAY_MS = 86_400_000;

/** The history of finished runs. */
export class EngineHistory {
  #sys: HeldSys;

  constructor(sys: HeldSys) {
    this.#sys = sys;
  }

  /** Runs `fn` on the ready history. */
  async open<T>(fn: (db: DatabaseSync) => T | Promise<T>, opts: HistoryOptions = {}): Promise<T> {
    const { withHistory } = await import("../store/history/ready.ts");
    return await withHistory(this.#sys, (db, prep) => {
      opts.onPrepared?.(prep);
      return fn(db);
    });
  }

  /** Finds finished runs (full-text over task, answer and steps), newest first. */
  async search(filter: SearchFilter, options: SearchOptions & HistoryOptions = {}) {
    const { searchRuns } = await import("./history/search.ts");
    return await this.open((db): SearchHit[] => searchRuns(db, filter, options), options);
  }

  /** Runs, success rate, time and tokens per worker and model in a period. */
  async stats(period: Period, options: HistoryOptions = {}): Promise<Stats> {
    const { computeStats } = await import("./history/stats.ts");
    const now = this.#sys.clock.now();
    return await this.open((db) => computeStats(db, period.since, now), options);
  }

  /** Takes in the runs on disk the history does not have yet. */
  async import(options: HistoryOptions = {}): Promise<ImportResult> {
    const { withHistory } = await import("../store/history/ready.ts");
    const { importRuns } = await import("../store/history/import.ts");
    return await withHistory(this.#sys, async (db, prep) => {
      options.onPrepared?.(prep);
      // A first import has just run while opening; running it again would do the same work.
      if (prep.imported) return prep.imported;
      return await importRuns(this.#sys, db);
    });
  }

  /**
   * A run the history keeps (its record, steps and patch), or null: a full id names any run,
   * `last` and a part of an id the runs of `scope` (null: every repository's).
   */
  async kept(typed: string, scope: Scope | null): Promise<KeptRun | null> {
    // No history yet, and no run waiting to be indexed (a foreground run's, store/history/mod.ts).
    const paths = this.#sys.state.paths;
    if (!(await exists(paths.history)) && !(await hasEntries(paths.historyPending))) return null;
    const { keptRun, matchIds } = await import("./runs/history_copy.ts");
    return await this.open((db) => {
      const ids = matchIds(db, typed, scope);
      if (ids.length > 1) {
        throw new UsageError(
          `Run "${typed}" is ambiguous: ${ids.length} runs in the history match`,
          { hint: "give more of the id" },
        );
      }
      return ids[0] === undefined ? null : keptRun(db, ids[0]);
    });
  }

  /** What `clean` would remove: the run folders older than `days`, and what it keeps. */
  async planClean(days: number): Promise<CleanPlan> {
    const { planClean } = await import("./runs/clean.ts");
    return await planClean(this.#sys, {
      cutoff: this.#sys.clock.now() - days * DAY_MS,
      reconcile: (record) => reconcile(this.#sys, record),
    });
  }

  /** Removes the planned run folders (the history keeps them). */
  async clean(plan: CleanPlan, options: HistoryOptions = {}): Promise<CleanResult> {
    const { removeRuns } = await import("./runs/clean.ts");
    return await this.open((db) => removeRuns(this.#sys, db, plan), options);
  }
}
