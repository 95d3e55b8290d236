/**
 * The audit steps that follow a run, loaded only when one is due (complete.ts `afterRun`): an
 * audit run's reply copied onto the audited run, a correction round started and its answer
 * copied back, a sampled audit started in the host.
 */
import type { HeldSys } from "../../store/state.ts";
import { indexRun } from "../../store/history/mod.ts";
import type { AuditFix, AuditResult, RunRecord } from "../../store/record.ts";
import { PitroomError, RefusedError } from "../../sys/errors.ts";
import { buildRuns, createUnique } from "../request/build.ts";
import { loadSettings } from "../core/load_settings.ts";
import { startSupervisors } from "../host/supervisor.ts";
import { answererOf } from "./choose.ts";
import { fixPrompt } from "./prompt.ts";
import { createAudit, updateRecord } from "./start.ts";
import { parseAudit } from "./verdict.ts";

/** Options of `afterRun`. */
export interface AfterRunOptions {
  /** Executes a follow-on run here (a foreground audit's correction round); else the host does. */
  inline?: (id: string) => Promise<unknown>;
}

function spendOf(record: RunRecord): { tokens: RunRecord["progress"]["tokens"]; cost: number } {
  return {
    tokens: record.receipt?.tokens ?? record.progress.tokens,
    cost: record.receipt?.workerCost ?? record.progress.cost ?? 0,
  };
}

async function launch(sys: HeldSys, id: string, options: AfterRunOptions): Promise<void> {
  if (options.inline) await options.inline(id);
  else await startSupervisors(sys, [id]);
}

/** Copies the audit's result onto the audited run (unless a newer audit took its place). */
async function setAudit(
  sys: HeldSys,
  audited: string,
  auditRun: string,
  change: (audit: AuditResult) => void,
): Promise<RunRecord> {
  const record = await updateRecord(sys, audited, (r) => {
    if (r.audit?.run !== auditRun) return false;
    change(r.audit);
    return true;
  });
  await indexRun(sys, record);
  return record;
}

export async function completeAudit(
  sys: HeldSys,
  run: RunRecord,
  options: AfterRunOptions,
): Promise<void> {
  const of = run.auditOf!;
  const parsed = run.outcome === "ok" && run.answer !== undefined ? parseAudit(run.answer) : {
    ok: false as const,
    message: `the audit run ended ${run.outcome ?? run.state}${
      run.message ? `: ${run.message}` : ""
    }`,
  };
  const by = answererOf(run);
  const audited = await setAudit(sys, of.run, run.id, (audit) => {
    audit.worker = by.worker;
    if (by.model === undefined) delete audit.model;
    else audit.model = by.model;
    audit.endedAt = run.endedAt ?? sys.clock.now();
    Object.assign(audit, spendOf(run));
    if (parsed.ok) {
      audit.state = "done";
      audit.verdict = parsed.verdict;
      audit.disputed = parsed.disputed;
    } else {
      audit.state = "failed";
      audit.message = parsed.message;
    }
  });
  if (!parsed.ok || parsed.verdict === "AGREE" || of.fix !== true) return;
  if (audited.audit?.run !== run.id) return;
  let fix: AuditFix;
  let fixId: string | undefined;
  try {
    const { specs } = await buildRuns(
      sys,
      { task: fixPrompt(parsed.disputed), continue: of.run, audit: false },
      await loadSettings(sys),
    );
    const spec = { ...specs[0]!, auditOf: { run: of.run, kind: "fix" as const } };
    fixId = (await createUnique(sys, spec)).id;
    fix = { run: fixId, state: "running" };
  } catch (error) {
    if (!(error instanceof PitroomError)) throw error;
    fix = { state: "failed", message: error.message };
  }
  await setAudit(sys, of.run, run.id, (audit) => (audit.fix = fix));
  if (fixId !== undefined) await launch(sys, fixId, options);
}

export async function completeFix(sys: HeldSys, run: RunRecord): Promise<void> {
  const audited = run.auditOf!.run;
  const record = await updateRecord(sys, audited, (r) => {
    const fix = r.audit?.fix;
    if (fix?.run !== run.id) return false;
    const ok = run.outcome === "ok" && run.answer !== undefined;
    fix.state = ok ? "done" : "failed";
    if (ok) fix.answer = run.answer!;
    else fix.message = `the correction round ended ${run.outcome ?? run.state}`;
    Object.assign(fix, spendOf(run));
    return true;
  });
  await indexRun(sys, record);
}

export async function startSampled(sys: HeldSys, run: RunRecord): Promise<void> {
  try {
    const audit = await createAudit(sys, run.id, {
      sampled: run.auditWanted === undefined,
      fix: run.settings?.audit?.fix ?? false,
    });
    await startSupervisors(sys, [audit.id]);
  } catch (error) {
    if (!(error instanceof RefusedError)) throw error;
    // Nobody can audit it: the run says so instead of passing silently.
    const record = await updateRecord(sys, run.id, (r) => {
      r.audit = {
        state: "failed",
        sampled: run.auditWanted === undefined,
        disputed: [],
        message: error.message,
        startedAt: sys.clock.now(),
        endedAt: sys.clock.now(),
      };
      return true;
    });
    await indexRun(sys, record);
  }
}
