/**
 * Indexing one finished run (what the lifecycle calls through history/mod.ts).
 */
import { statePaths } from "../store/paths.ts";
import { isFinal, type RunRecord } from "../store/record.ts";
import type { Sys } from "../sys/mod.ts";
import { openExisting, openHistory } from "./db.ts";
import { readRunFiles } from "./files.ts";
import { RunWriter } from "./write.ts";

/** Indexes `record` (a finished run) with its steps and patch; throws on failure. */
export async function indexNow(sys: Sys, record: RunRecord): Promise<void> {
  if (!isFinal(record.state)) return;
  const files = await readRunFiles(statePaths(sys.stateDir), record);
  const { history } = await openHistory(sys);
  using _ = history;
  new RunWriter(history.db).write([files]);
}

/** USD saved by the runs that ended at or after `since`; 0 when there is no history yet. */
export async function savedSinceNow(sys: Sys, since: number): Promise<number> {
  const history = await openExisting(sys);
  if (history === null) return 0;
  using _ = history;
  const row = history.db.prepare(
    "SELECT COALESCE(SUM(saved), 0) AS saved FROM runs WHERE ended_at >= ?",
  ).get(since) as { saved: number };
  return row.saved;
}
