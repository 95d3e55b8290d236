/**
 * Recording what a face handed over of runs (behind `engine.handedOver`): each run's share of a
 * result is appended to its folder's `returned.jsonl` (store/returned.ts), then the history's rows
 * are brought up to date, so the receipts, `savings` and the dashboard count what the caller was
 * handed. Never fails the caller: its output is already out; a run whose folder is gone (cleaned)
 * is skipped, and anything else is logged.
 */
import type { HeldSys } from "../../store/state.ts";
import { indexReturned } from "../../store/history/mod.ts";
import { logFailure } from "../../store/log.ts";
import { appendHandover, type Handover } from "../../store/returned.ts";

/** One run's share of a result handed over. */
export interface HandedRun {
  id: string;
  bytes: number;
}

/** How a result was handed over: by which face, with which tool or command. */
export type HandedHow = Pick<Handover, "via" | "what">;

/** Records that `runs` were handed over, each its share of the result. */
export async function recordHandover(
  sys: HeldSys,
  runs: readonly HandedRun[],
  how: HandedHow,
): Promise<void> {
  const at = sys.clock.now();
  const recorded: string[] = [];
  for (const run of runs) {
    try {
      await appendHandover(sys.state.paths, run.id, { at, ...how, bytes: run.bytes });
      recorded.push(run.id);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      await logFailure(sys, "runs.log", {
        what: `recording what ${how.what} handed over of run ${run.id}`,
        error,
      });
    }
  }
  if (recorded.length > 0) await indexReturned(sys, recorded);
}
