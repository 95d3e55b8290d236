/**
 * The run record (`run.json`): the truth about one run. Written atomically by the run's
 * supervisor; read by every command. `schemaVersion` changes when the shape does.
 *
 * Its zod schema (`runRecordSchema()`, store/record_schema.ts) is the one description of a run: every type below is
 * inferred from it, the engine's report is it (engine/follow/report.ts), and the dashboard's
 * contract names its types (server/dash/api_types.ts). This module has no effects and imports
 * none that has, so the page can import its types.
 */
import type { z } from "zod/v4";
import { RUN_STATES, type RunState } from "../events/mod.ts";
import { MODE_NAMES } from "../workers/names.ts";
import type { RecordSchemas as Schemas } from "./record_schema.ts";

/** The current record format. */
export const RECORD_SCHEMA = 1;

/** The run record. */
export type RunRecord = z.infer<Schemas["RunRecordSchema"]>;
/** One step of a worker chain. */
export type Target = z.infer<Schemas["TargetSchema"]>;
/** What the sandbox hid from a worker (confine/sandboxing.ts). */
export type Hidden = z.infer<Schemas["HiddenSchema"]>;
/** One attempt: a target that ran (or was skipped). */
export type Attempt = z.infer<Schemas["AttemptSchema"]>;
/** Token counts. */
export type Tokens = z.infer<Schemas["TokensSchema"]>;
/** Live progress of a run. */
export type Progress = z.infer<Schemas["ProgressSchema"]>;
/** A file the worker changed. */
export type ChangedFile = z.infer<Schemas["ChangedFileSchema"]>;
/** A file as a tree records it (git mode and blob id). */
export type FileEntry = z.infer<Schemas["FileEntrySchema"]>;
/** A file both the worker and the user changed during a write run. */
export type SharedFile = z.infer<Schemas["SharedFileSchema"]>;
/** A snapshot of the working tree (plain data from vcs/). */
export type TreeSnapshot = z.infer<Schemas["TreeSnapshotSchema"]>;
/** A file revert left as it was: the worker's changes could not be taken out of it alone. */
export type LeftFile = z.infer<Schemas["LeftFileSchema"]>;
/** What a write (or violating read) run changed. */
export type Changes = z.infer<Schemas["ChangesSchema"]>;
/** What `--verify` found. */
export type Verify = z.infer<Schemas["VerifySchema"]>;
/**
 * What a run cost and what it saved. Every money figure is an estimate: a CLI's reported cost
 * where it gives one, else token counts times a price table (src/receipts/).
 */
export type Receipt = z.infer<Schemas["ReceiptSchema"]>;
/**
 * Isolate mode (`-i`): the worker works in a private copy of the tree (its own repository in
 * the state dir, objects borrowed read-only from the user's) and the run keeps a patch.
 */
export type Isolation = z.infer<Schemas["IsolationSchema"]>;
/** An answer split into the sections of the answer format. */
export type AnswerSections = z.infer<Schemas["AnswerSectionsSchema"]>;
/** The reference check of an answer. */
export type RefsCheck = z.infer<Schemas["RefsCheckSchema"]>;
/** The plan and task a run implements. */
export type PlanRef = z.infer<Schemas["PlanRefSchema"]>;
/** One finding of a review. */
export type ReviewFinding = z.infer<Schemas["ReviewFindingSchema"]>;
/** A review's verdict (both lines present: `complete`). */
export type ReviewVerdict = z.infer<Schemas["ReviewVerdictSchema"]>;
/** What a review run reviews, and (once it ended) its verdict. */
export type ReviewInfo = z.infer<Schemas["ReviewInfoSchema"]>;
/** A review of a run, as the reviewed run's record keeps it. */
export type ReviewSummary = z.infer<Schemas["ReviewSummarySchema"]>;
/** What an audit run (or a correction round) is to the run it re-checks. */
export type AuditOf = z.infer<Schemas["AuditOfSchema"]>;
/** An audit's verdict on an answer. */
export type AuditVerdict = z.infer<Schemas["auditVerdict"]>;
/** The correction round of a disputed answer: annotates the answer, never replaces it. */
export type AuditFix = z.infer<Schemas["AuditFixSchema"]>;
/** What an audit of a run found (copied onto the audited run's record). */
export type AuditResult = z.infer<Schemas["AuditResultSchema"]>;
/** The config's default models and prices (what a receipt is priced with). */
export type PriceSettings = z.infer<Schemas["PriceSettingsSchema"]>;
/** Settings a run keeps from its creation. */
export type FrozenSettings = z.infer<Schemas["FrozenSettingsSchema"]>;

/** An empty progress. */
export function emptyProgress(): Progress {
  return { steps: 0, tools: 0, tokens: { input: 0, output: 0, cached: 0, reasoning: 0 } };
}

/** True when the state is final. */
export function isFinal(state: RunState): boolean {
  return state === "done" || state === "problem" || state === "lost";
}

/**
 * What is wrong with a parsed `run.json`, or null when its shape is whole enough to trust: the
 * fields every reader relies on (a damaged state or mode would be taken for another run's).
 */
export function recordProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `not a run record: ${
      value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`
    }`;
  }
  const r = value as Partial<Record<keyof RunRecord, unknown>>;
  if (typeof r.schemaVersion !== "number") return "no schemaVersion";
  if (typeof r.id !== "string") return "no id";
  if (!(RUN_STATES as readonly unknown[]).includes(r.state)) return `an unknown state`;
  if (!(MODE_NAMES as readonly unknown[]).includes(r.mode)) return "an unknown mode";
  if (typeof r.task !== "string" || typeof r.cwd !== "string") return "no task or folder";
  if (typeof r.createdAt !== "number") return "no creation time";
  if (!Array.isArray(r.attempts) || !Array.isArray(r.chain)) return "no worker chain";
  const progress = r.progress as Partial<Progress> | undefined;
  if (typeof progress !== "object" || progress === null || typeof progress.tokens !== "object") {
    return "no progress";
  }
  return null;
}

/** Checks the shape of a parsed `run.json` enough to trust it. */
export function isRunRecord(value: unknown): value is RunRecord {
  return recordProblem(value) === null;
}
