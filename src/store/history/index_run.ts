/**
 * Indexing one finished run (what the lifecycle calls through store/history/mod.ts), and what
 * was handed over of runs (their returned figures).
 */
import type { HeldSys } from "../state.ts";
import { isFinal, type RunRecord } from "../record.ts";
import { openHistory } from "./db.ts";
import { readRunFiles } from "./files.ts";
import { RunWriter, writeReturned } from "./write.ts";
import { readHandoversSync } from "../returned.ts";

/** Indexes `record` (a finished run) with its steps and patch; throws on failure. */
export async function indexNow(sys: HeldSys, record: RunRecord): Promise<void> {
  if (!isFinal(record.state)) return;
  const files = await readRunFiles(sys.state.paths, record);
  const { history } = await openHistory(sys);
  using _ = history;
  new RunWriter(history.db).write([files]);
}

/** Updates the rows of `ids` with what was handed over of them; throws on failure. */
export async function returnedNow(sys: HeldSys, ids: readonly string[]): Promise<void> {
  const { history } = await openHistory(sys);
  using _ = history;
  for (const id of ids) {
    writeReturned(history.db, id, () => readHandoversSync(sys.state.paths, id));
  }
}
