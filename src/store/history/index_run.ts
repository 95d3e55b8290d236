/**
 * Indexing one finished run (what the lifecycle calls through store/history/mod.ts).
 */
import type { HeldSys } from "../state.ts";
import { isFinal, type RunRecord } from "../record.ts";
import { openHistory } from "./db.ts";
import { readRunFiles } from "./files.ts";
import { RunWriter } from "./write.ts";

/** Indexes `record` (a finished run) with its steps and patch; throws on failure. */
export async function indexNow(sys: HeldSys, record: RunRecord): Promise<void> {
  if (!isFinal(record.state)) return;
  const files = await readRunFiles(sys.state.paths, record);
  const { history } = await openHistory(sys);
  using _ = history;
  new RunWriter(history.db).write([files]);
}
