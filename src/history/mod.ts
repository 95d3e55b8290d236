/**
 * The searchable history (history.db): a finished run is indexed here; the run folders stay
 * the truth.
 */
import type { RunRecord } from "../store/record.ts";
import type { Sys } from "../sys/mod.ts";

/** Indexes a finished run. Never throws: the history can be rebuilt from the run folders. */
export function indexRun(_sys: Sys, _record: RunRecord): Promise<void> {
  return Promise.resolve();
}

/** USD saved by runs that ended at or after `since` (for the status line); 0 without a history. */
export function savedSince(_sys: Sys, _since: number): Promise<number> {
  return Promise.resolve(0);
}
