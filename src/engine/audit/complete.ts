/**
 * What happens once a run is final (called by the lifecycle after the run's slot is free, so it
 * never delays nor fails the run): an audit run's reply is read strictly and copied onto the
 * audited run (record and history), and with `auditFix` a disputed answer gets one correction
 * round in its worker's own session; a correction round's answer is copied onto the audit; a
 * finished read answer in the sample (or asked for with `--audit`) gets its audit started in
 * the background host.
 *
 * The correction annotates the answer, it never replaces it: `answer` stays what the worker first
 * said (the references and the history are of it), and `audit.fix.answer` holds the corrected
 * one, which the report prints under the audit.
 */
import type { HeldSys } from "../../store/state.ts";
import { logFailure } from "../../store/log.ts";
import type { RunRecord } from "../../store/record.ts";
import { wantsAudit } from "./sample.ts";
import { parseAudit } from "./verdict.ts";
import { MODES } from "../../workers/modes.ts";
import type { AfterRunOptions } from "./follow.ts";

export type { AfterRunOptions } from "./follow.ts";

/**
 * An audit run's final record, before it is written: its verdict and disputed claims read from
 * its answer, kept on the audit run itself too (the audited run gets them in `afterRun`), so the
 * audit's own card can say what it found.
 */
export function concludeAudit(record: RunRecord): void {
  const of = record.auditOf;
  if (of?.kind !== "audit" || record.outcome !== "ok" || record.answer === undefined) return;
  const parsed = parseAudit(record.answer);
  if (!parsed.ok) return;
  of.verdict = parsed.verdict;
  of.disputed = parsed.disputed;
}

/** The audit steps after a run ended; failures are logged, never thrown at the run. */
export async function afterRun(
  sys: HeldSys,
  run: RunRecord,
  options: AfterRunOptions = {},
): Promise<void> {
  try {
    const kind = run.auditOf?.kind;
    const sampled = kind === undefined && MODES[run.mode].answerOnly && run.outcome === "ok" &&
      run.answer?.trim() && wantsAudit(run, run.settings?.audit?.rate ?? 0);
    if (kind === undefined && !sampled) return;
    // The steps' code (an audit's chain, its prompt, the host) loads only when one is due.
    const follow = await import("./follow.ts");
    if (kind === "audit") await follow.completeAudit(sys, run, options);
    else if (kind === "fix") await follow.completeFix(sys, run);
    else await follow.startSampled(sys, run);
  } catch (error) {
    await logFailure(sys, "runs.log", { what: `the audit step after run ${run.id}`, error });
  }
}
