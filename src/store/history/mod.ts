/**
 * The store half of the searchable history (`history.db` in the state dir, built-in node:sqlite
 * with FTS5). The run folders stay the truth and the database is an index of them: the lifecycle
 * calls `indexRun` when a run finishes; `pitroom history import` (also run by itself the first
 * time the history is used, and after a damaged file was moved aside) rebuilds it from the
 * folders (import.ts, files.ts); `pitroom clean` indexes a run once more before it removes its
 * folder, so `show` can still print it. The tables are schema.ts, the rows row.ts and write.ts;
 * commands read through `withHistory` (ready.ts). The queries over those tables (search, stats,
 * savings, lookups) are the engine's: engine/history/.
 *
 * This module is imported by the engine on every run: it loads nothing heavy until called.
 */
import type { HeldSys } from "../state.ts";
import { isFinal, type RunRecord } from "../record.ts";
import { dirname, join } from "../../sys/path.ts";
import { logFailure } from "../log.ts";
import { handoversSize } from "../returned.ts";
import { writeTextAtomic } from "../../sys/atomic.ts";

/**
 * Indexes a finished run. Never throws: the run is marked pending (`history-pending/<id>`)
 * before its write begins and the mark goes once it is written, so a run that could not be
 * indexed (a failure, or the process killed half-way) is indexed by the next command that reads
 * the history.
 */
export async function indexRun(sys: HeldSys, record: RunRecord): Promise<void> {
  const mark = join(sys.state.paths.historyPending, record.id);
  const marked = isFinal(record.state) && await markPending(sys, mark, record);
  const handed = handoversSize(sys.state.paths, record.id);
  try {
    const { indexNow } = await import("./index_run.ts");
    await indexNow(sys, record);
  } catch (error) {
    await logFailure(sys, "history.log", {
      what: `indexing run ${record.id} (left pending)`,
      error,
    });
    return;
  }
  if (!marked) return;
  await Deno.remove(mark).catch(async (error) => {
    if (error instanceof Deno.errors.NotFound) return;
    await logFailure(sys, "history.log", { what: `unmarking run ${record.id}`, error });
  });
  // A handover appended while the row was written saw the mark and left it to this indexing.
  if (handoversSize(sys.state.paths, record.id) !== handed) await indexReturned(sys, [record.id]);
}

/**
 * Leaves a finished run's indexing to the next command that reads the history (a short-lived
 * foreground `pitroom run` does not keep its caller waiting for SQLite): the run is marked
 * pending, as one whose indexing failed, the mark holding a copy of its final record (what the
 * row would have kept: a `run.json` damaged before the indexing is read from it). When the mark
 * cannot be written it is indexed now.
 */
export async function indexLater(sys: HeldSys, record: RunRecord): Promise<void> {
  const mark = join(sys.state.paths.historyPending, record.id);
  if (isFinal(record.state) && await markPending(sys, mark, record)) return;
  await indexRun(sys, record);
}

/** Whether a run's indexing is pending (`history-pending/<id>`). */
function pending(sys: HeldSys, id: string): boolean {
  try {
    Deno.statSync(join(sys.state.paths.historyPending, id));
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes the pending mark of a run, holding a copy of its record (read where `run.json` cannot
 * be, store/history/import.ts); false (logged) when it cannot be written.
 */
async function markPending(sys: HeldSys, mark: string, record: RunRecord): Promise<boolean> {
  try {
    await Deno.mkdir(dirname(mark), { recursive: true, mode: 0o700 });
    await writeTextAtomic(mark, JSON.stringify(record));
    return true;
  } catch (error) {
    await logFailure(sys, "history.log", { what: `marking run ${record.id} pending`, error });
    return false;
  }
}

/**
 * Brings the history's rows of runs up to what was handed over of them (store/returned.ts).
 * Never throws: a failure is logged, and the next indexing of the run reads the handovers anyway.
 */
export async function indexReturned(sys: HeldSys, ids: readonly string[]): Promise<void> {
  // A run still pending is indexed whole later, its handovers read then.
  const indexed = ids.filter((id) => !pending(sys, id));
  if (indexed.length === 0) return;
  try {
    const { returnedNow } = await import("./index_run.ts");
    await returnedNow(sys, indexed);
  } catch (error) {
    await logFailure(sys, "history.log", {
      what: `recording what was handed over of run(s) ${ids.join(", ")}`,
      error,
    });
  }
}
