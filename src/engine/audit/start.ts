/**
 * Starting an audit: the audited run must be a finished read run with an answer; the auditor's
 * chain comes from choose.ts (under today's budget); the audit is a real read run of Pitroom
 * (its own record, marked `auditOf`, never audited itself nor counted in the history) whose
 * task is the audit template; the audited run's record says at once that an audit runs.
 */
import type { HeldSys } from "../../store/state.ts";
import { type AuditResult, isFinal, type RunRecord } from "../../store/record.ts";
import { RefusedError } from "../../sys/errors.ts";
import type { Backend } from "../../workers/types.ts";
import { checkBudget } from "../request/budget.ts";
import { createUnique } from "../request/build.ts";
import { loadSettings } from "../core/load_settings.ts";
import { auditChain } from "./choose.ts";
import { auditPrompt } from "./prompt.ts";
import { MODES } from "../../workers/modes.ts";
import { saveChanged } from "../runs/changed.ts";

/** Options of `createAudit`. */
export interface CreateAuditOptions {
  /** The auditor asked for (`-W`). */
  worker?: string;
  /** Start the correction round on a disputed verdict. @default the config's auditFix */
  fix?: boolean;
  /** Started by the sample rate. */
  sampled: boolean;
  /** Looks up a backend (tests hand in a scripted one). */
  backends?: (name: string) => Backend;
}

/** Refuses a run that is not a finished read answer. */
export function checkAuditable(record: RunRecord): void {
  const refuse = (code: string, why: string, hint?: string) => {
    throw new RefusedError(
      code,
      `Run "${record.id}" cannot be audited: ${why}`,
      hint ? { hint } : {},
    );
  };
  if (record.auditOf !== undefined) refuse("audit_of_audit", "it is an audit itself");
  if (!isFinal(record.state)) {
    refuse("run_live", `it is still ${record.state}`, `pitroom wait ${record.id}`);
  }
  if (!MODES[record.mode].answerOnly) refuse("not_read", "audits re-check read answers");
  if (record.outcome !== "ok" || !record.answer?.trim()) {
    refuse("no_answer", "it gave no answer");
  }
}

/**
 * Changes the audit on an audited (finished) run's record: read, changed, written atomically, and
 * told to the live readers.
 */
export async function updateRecord(
  sys: HeldSys,
  id: string,
  change: (record: RunRecord) => boolean,
): Promise<RunRecord> {
  const record = await sys.state.runs.load(id);
  if (change(record)) await saveChanged(sys, record, "audit");
  return record;
}

/** Creates the audit run of `id` (queued) and marks the audited run; starts nothing. */
export async function createAudit(
  sys: HeldSys,
  id: string,
  options: CreateAuditOptions,
): Promise<RunRecord> {
  const audited = await sys.state.runs.load(id);
  checkAuditable(audited);
  const loaded = await loadSettings(sys);
  const { settings } = loaded;
  const candidates = await auditChain(sys, audited, settings, {
    ...(options.worker === undefined ? {} : { worker: options.worker }),
    ...(options.backends === undefined ? {} : { backends: options.backends }),
  });
  const budget = await checkBudget(sys, candidates, {
    limit: settings.budgetDaily.value,
    prices: settings.workerPrices.value,
  });
  const { models, costs, workerPrices, primary, price } = loaded.loaded.config;
  const record = await createUnique(sys, {
    task: auditPrompt(audited.task, audited.answer!),
    mode: "read",
    cwd: audited.cwd,
    chain: budget.chain,
    timeoutMs: settings.timeout.value.ms,
    web: false,
    auditWanted: false,
    auditOf: { run: id, kind: "audit", fix: options.fix ?? settings.auditFix.value },
    ...(budget.warning === undefined ? {} : { notes: [budget.warning] }),
    settings: {
      maxParallel: settings.maxParallel.value,
      limits: settings.limits.value,
      config: JSON.parse(JSON.stringify({ models, costs, workerPrices, primary, price })),
    },
  });
  const first = record.chain[0]!;
  const audit: AuditResult = {
    run: record.id,
    worker: first.worker,
    ...(first.model === undefined ? {} : { model: first.model }),
    state: "running",
    sampled: options.sampled,
    disputed: [],
    startedAt: sys.clock.now(),
  };
  await updateRecord(sys, id, (r) => {
    r.audit = audit;
    return true;
  });
  return record;
}
