/**
 * What a plan or review run's answer means, read once when the run ends (in the supervisor that
 * finishes it): a plan run's implementer status and open issues; a review run's verdict, copied
 * into the reviewed run's record too. A review whose answer lacks either verdict line is a
 * failed review (exit 1), never a pass.
 */
import type { HeldSys } from "../../store/state.ts";
import type { ReviewSummary, RunRecord } from "../../store/record.ts";
import { indexRun } from "../../store/history/mod.ts";
import { Exit } from "../../sys/errors.ts";
import { parseImplementerReport } from "../plan/status_line.ts";
import { parseVerdict } from "./verdict.ts";
import { saveChanged } from "../runs/changed.ts";

/** Sets the record's implementer status or review verdict from its answer (before it is written). */
export function concludeAnswer(record: RunRecord): void {
  if (record.outcome !== "ok") return;
  if (record.review !== undefined) {
    const verdict = parseVerdict(record.answer ?? "");
    record.review.verdict = verdict;
    if (!verdict.complete) {
      const missing = [
        ...(verdict.spec === undefined ? ["SPEC: PASS|FAIL"] : []),
        ...(verdict.quality === undefined ? ["QUALITY: APPROVED|NEEDS-FIXES"] : []),
      ];
      record.outcome = "failed";
      record.state = "problem";
      record.exit = Exit.workerFailed;
      record.message = `Failed review: the reviewer's answer lacks the line ${
        missing.join(" and ")
      }`;
    }
    return;
  }
  if (record.plan !== undefined) record.implementer = parseImplementerReport(record.answer ?? "");
}

/** Copies a finished review's verdict into the reviewed run's record (and its history row). */
export async function recordReview(sys: HeldSys, review: RunRecord): Promise<void> {
  const info = review.review;
  if (info?.of === undefined || info.verdict === undefined) return;
  const reviewed = await sys.state.runs.read(info.of);
  if (reviewed === null) return;
  const summary: ReviewSummary = {
    run: review.id,
    kind: info.kind,
    at: review.endedAt ?? sys.clock.now(),
    ...info.verdict,
  };
  reviewed.reviews = [...(reviewed.reviews ?? []).filter((r) => r.run !== review.id), summary];
  await saveChanged(sys, reviewed, "review");
  await indexRun(sys, reviewed);
}
