/**
 * The run record (`run.json`): the truth about one run. Written atomically by the run's
 * supervisor; read by every command. `schemaVersion` changes when the shape does.
 */
import { type OutcomeClass, RUN_STATES, type RunState } from "../events/mod.ts";
import type { Mode, WorkerName } from "../workers/types.ts";
import type { Config } from "./config.ts";

/** The current record format. */
export const RECORD_SCHEMA = 1;

/** One step of a worker chain. */
export interface Target {
  worker: WorkerName;
  model?: string;
}

/** What the sandbox hid from a worker (confine/sandboxing.ts). */
export interface Hidden {
  credentials: { count: number; examples: string[] };
  files: { count: number; examples: string[] };
}

/** One attempt: a target that ran (or was skipped). */
export interface Attempt {
  worker: WorkerName;
  model?: string;
  startedAt: number;
  endedAt?: number;
  outcome?: OutcomeClass;
  message?: string;
  sessionId?: string;
  /** Cumulative session usage at the end (CLIs that count per session, like codex). */
  sessionTotals?: Record<string, number>;
  workerPid?: number;
  /** The sandbox the worker ran in: `bwrap`, `sandbox-exec`, or `none`. */
  sandbox?: string;
}

/** Token counts. */
export interface Tokens {
  input: number;
  output: number;
  cached: number;
  reasoning: number;
}

/** Live progress of a run. */
export interface Progress {
  steps: number;
  tools: number;
  /** Tool calls the worker's permissions refused (counted in `tools` too). */
  denied?: number;
  last?: string;
  tokens: Tokens;
  cost?: number;
}

/** A file the worker changed. */
export interface ChangedFile {
  path: string;
  status: "added" | "modified" | "deleted";
  added: number;
  removed: number;
  binary: boolean;
  /** The git mode before and after, when it changed (`100644` -> `100755`). */
  mode?: { from: string; to: string };
  /**
   * Write mode: the user changed this file too while the run worked (`split`: only the worker's
   * segments are its own; `unsure`: an edit of each came too close together to tell apart).
   */
  shared?: "split" | "unsure";
}

/** A file both the worker and the user changed during a write run. */
export interface SharedFile {
  path: string;
  /** The worker's changes: each from the version just before its edit to the one it left. */
  segments: { before: FileEntry | null; after: FileEntry | null }[];
  /** True when some change to it cannot be told the worker's or the user's. */
  unsure?: true;
}

/** A file as a tree records it (git mode and blob id). */
export interface FileEntry {
  mode: string;
  blob: string;
}

/** A snapshot of the working tree (plain data from vcs/). */
export interface TreeSnapshot {
  tree: string;
  head: string | null;
  /** Where the user's index and stash stood then (write runs: to tell when they moved). */
  index?: string;
  /** Untracked directories with no tracked file then (revert keeps them). */
  bareDirs: string[];
  /** What git ignored then (files, and directories with a trailing slash). */
  ignored: string[];
}

/** What a write (or violating read) run changed. */
export interface Changes {
  before: TreeSnapshot;
  /** The tree after the worker. */
  after: string;
  /** The files the worker's recorded tool calls could have changed (what revert undoes). */
  files: ChangedFile[];
  /**
   * Write mode: files changed while the run worked (or, for a lost run, since it began) that no
   * tool call of the worker could have changed; revert leaves them alone unless `--all`. A file
   * both changed is in `files` and here, marked `shared`.
   */
  others?: ChangedFile[];
  /** Write mode: the files both the worker and the user changed, with the worker's segments. */
  shared?: SharedFile[];
  /** The digest of the run's `patch.diff` (`sha256:<hex>`), to tell a damaged one. */
  patchDigest?: string;
  /** True once `pitroom revert` (or the read-only guard) undid them (mirrors the journal). */
  reverted?: boolean;
  /** True once `pitroom revert --all` undid `others` too (mirrors the journal). */
  othersReverted?: boolean;
  /**
   * What moved in the repository while the run worked (a commit, a branch switch, a stash, a
   * reset): HEAD's commit, or the index's entries. Revert refuses then unless forced.
   */
  moved?: { head?: { from: string | null; to: string | null }; index?: boolean };
  /** A revert under way, or cut short (mirrors the journal). */
  reverting?: { at: number };
  /** Files the last revert left as they were, why, and where their versions are kept. */
  left?: LeftFile[];
}

/** A file revert left as it was: the worker's changes could not be taken out of it alone. */
export interface LeftFile {
  path: string;
  /** Why, in a few words ("the changes overlap"). */
  why: string;
  /** The folder of the run holding its versions (the file now, and without the worker's edit). */
  kept?: string;
}

/** What `--verify` found. */
export interface Verify {
  command: string;
  ok: boolean;
  /** Exit code; null when killed by a signal. */
  code: number | null;
  timedOut: boolean;
  ms: number;
  /** The last few KB of its output (stdout and stderr). */
  output: string;
}

/**
 * What a run cost and what it saved. Every money figure is an estimate: a CLI's reported cost
 * where it gives one, else token counts times a price table (src/receipts/).
 */
export interface Receipt {
  /** Tokens the worker burned. */
  tokens: Tokens;
  /** Tokens handed back to the caller: the report's size (about 4 characters a token). */
  returnedTokens: number;
  /** Worker tokens (input + output) per returned token; null when nothing was returned. */
  compression: number | null;
  /** What the worker cost, USD. */
  workerCost: number;
  /** Where `workerCost` came from. */
  workerCostSource: "reported" | "price-table" | "config" | "free" | "unknown";
  /** The primary model the savings are measured against (`sonnet`, `opus`, `gpt-5`, `custom`). */
  primary: string;
  /** What the primary model would have charged for the same tokens, USD. */
  primaryCost: number;
  /** `primaryCost - workerCost`. */
  saved: number;
  /** The model the worker's tokens were priced at (the last attempt's), when known. */
  model?: string;
  /** The day the built-in list prices were taken (`2026-11-30`). */
  pricesTaken?: string;
}

/**
 * Isolate mode (`-i`): the worker works in a private copy of the tree (its own repository in
 * the state dir, objects borrowed read-only from the user's) and the run keeps a patch.
 */
export interface Isolation {
  /** The copy's root. */
  copyRoot: string;
  /** Ignored folders symlinked into the copy (`--link`), relative to the repository root. */
  links: string[];
  /**
   * When `pitroom apply` applied the patch to the user's tree, and which files it touched;
   * `before` and `after` are the user's tree just before and after it (a revert undoes exactly
   * that step, merged files included).
   */
  applied?: { at: number; files: string[]; before?: TreeSnapshot; after?: string };
  /** An apply under way, or cut short (mirrors the journal; `before` on older records). */
  applying?: { at: number; before?: TreeSnapshot };
  /** When `pitroom discard` removed the copy (the patch is kept). */
  discarded?: { at: number };
}

/** The run record. */
export interface RunRecord {
  schemaVersion: number;
  id: string;
  state: RunState;
  mode: Mode;
  task: string;
  /** The directory the run works in. */
  cwd: string;
  /** The repository root (the snapshot scope), when the dir is in a git repo. */
  repoRoot?: string;
  group?: string;
  chain: Target[];
  effort?: string;
  web: boolean;
  timeoutMs: number;
  /** Caps that stop the worker when reached (`--max-tokens`, `--max-cost`, `--max-steps`). */
  caps?: { maxTokens?: number; maxCost?: number; maxSteps?: number };
  /** A command run in the worker's tree after it succeeded (`--verify`). */
  verifyCommand?: string;
  verify?: Verify;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  supervisorPid?: number;
  /** Set by the supervisor once it holds the run's lock. */
  supervised?: boolean;
  attempts: Attempt[];
  /** Targets left out because they were cooling down. */
  skipped?: { worker: WorkerName; model?: string; until: number }[];
  /** An isolate run without a sandbox may hold links leading out of its copy (`--allow-links`). */
  allowLinks?: boolean;
  /** A write or isolate run whose worker sees the tree's secret-looking files (`--allow-secrets`). */
  allowSecrets?: boolean;
  /** A crew's run: its task's place among the tasks given together (0 first). */
  taskIndex?: number;
  /** A follow-up: the run it continues and the worker session it resumes. */
  continues?: { run: string; sessionId: string; sessionTotals?: Record<string, number> };
  progress: Progress;
  outcome?: OutcomeClass;
  exit?: number;
  message?: string;
  answer?: string;
  changes?: Changes;
  /** Things the user should know about how the run was set up (shown in the report). */
  notes?: string[];
  /**
   * What the sandbox hid from the worker besides Pitroom's own state: credential paths of the
   * home folder (`~/.ssh`, another CLI's login) and secret-looking files of the tree, with up to
   * three examples of each.
   */
  hidden?: Hidden;
  /** Isolate mode: where the copy is and what became of the patch. */
  isolation?: Isolation;
  /** What the run cost and saved (set when it ends). */
  receipt?: Receipt;
  /** Files attached to the task (`run -f`): their paths and sizes; the contents are in the task. */
  files?: { path: string; bytes: number }[];
  /** The settings resolved when the run was created, frozen (the host does not read them again). */
  settings?: FrozenSettings;
  /** The answer's sections, when it follows the answer format (engine/answer/format.ts). */
  sections?: AnswerSections;
  /** The reference check of the answer: how many `path:line` held, and each that did not. */
  refs?: RefsCheck;
  /** Claims of the answer the record or the tree contradict (engine/answer/evidence.ts). */
  evidence?: { kind: string; message: string }[];
  /** Asked with `--fresh`: the answer cache was not consulted. */
  fresh?: boolean;
  /** The answer cache's key of this run (read runs that may be reused). */
  cacheKey?: string;
  /** Answered from the cache: the earlier run whose answer this is, and when it ended. */
  cached?: { from: string; at: number };
  /** A plan run (`run --plan PLAN --step N`, and its follow-ups): the plan and the task. */
  plan?: PlanRef;
  /** A plan run's implementer status and open issues, parsed from its answer. */
  implementer?: { status: string; openIssues: string[] };
  /** A review run (`pitroom review`): what it reviewed, and its verdict once it ended. */
  review?: ReviewInfo;
  /** The reviews of this run, oldest first (their verdicts copied here when each ended). */
  reviews?: ReviewSummary[];
  /** `--audit` (true) or `--no-audit` (false): over the config's sample rate. */
  auditWanted?: boolean;
  /** An audit run (or its correction round): the run it re-checks. Not counted as a run. */
  auditOf?: AuditOf;
  /** The latest audit of this run's answer by another worker (src/engine/audit/). */
  audit?: AuditResult;
}

/** An answer split into the sections of the answer format. */
export interface AnswerSections {
  summary: string;
  findings: { text: string; ref?: string }[];
  filesChanged: string[];
  verified: string[];
  openIssues: string[];
}

/** The reference check of an answer. */
export interface RefsCheck {
  verified: number;
  total: number;
  failed: { ref: string; reason: string }[];
}

/** The plan and task a run implements. */
export interface PlanRef {
  /** The plan file's real path. */
  path: string;
  step: number;
  title: string;
  /** The tier the run was given (the task's, or `--tier`). */
  tier?: string;
}

/** One finding of a review. */
export interface ReviewFinding {
  severity: "Critical" | "Important" | "Minor";
  file?: string;
  line?: number;
  text: string;
}

/** A review's verdict (both lines present: `complete`). */
export interface ReviewVerdict {
  spec?: "PASS" | "FAIL";
  quality?: "APPROVED" | "NEEDS-FIXES";
  findings: ReviewFinding[];
  cannotVerify: string[];
  complete: boolean;
}

/** What a review run reviews, and (once it ended) its verdict. */
export interface ReviewInfo {
  /** `task`: a run's whole change; `fix`: a fix round's diff only; `range`: commits A...B. */
  kind: "task" | "fix" | "range";
  /** The run reviewed (task and fix reviews). */
  of?: string;
  /** A fix round: the earlier run whose review's findings the package carried. */
  previous?: string;
  /** A range review: what was typed, the merge base and the head commit. */
  range?: { typed: string; base: string; head: string; commits: number };
  /** The plan the package carried (its real path). */
  plan?: string;
  /** What was redacted from the package: files by name, secrets by content. */
  redacted: { files: string[]; secrets: number };
  /** The worker that implemented the reviewed run (the reviewer runs on another when it can). */
  implementer?: string;
  verdict?: ReviewVerdict;
}

/** A review of a run, as the reviewed run's record keeps it. */
export interface ReviewSummary extends ReviewVerdict {
  /** The review run. */
  run: string;
  kind: ReviewInfo["kind"];
  at: number;
}

/** What an audit run (or a correction round) is to the run it re-checks. */
export interface AuditOf {
  run: string;
  kind: "audit" | "fix";
  /** An audit: start the correction round when it disputes the answer (`auditFix`). */
  fix?: boolean;
}

/** An audit's verdict on an answer. */
export type AuditVerdict = "AGREE" | "PARTLY" | "DISAGREE";

/** What an audit of a run found (copied onto the audited run's record). */
export interface AuditResult {
  /** The audit run's id (none when no audit could be started). */
  run?: string;
  worker?: WorkerName;
  model?: string;
  /** `running` until the audit run ends; `failed` when it gave no clean verdict. */
  state: "running" | "done" | "failed";
  /** Started by the config's sample rate (not asked for). */
  sampled: boolean;
  verdict?: AuditVerdict;
  /** The claims of the answer the auditor found wrong or could not confirm. */
  disputed: string[];
  /** Why the audit failed. */
  message?: string;
  startedAt: number;
  endedAt?: number;
  /** What the audit itself burned and cost (never counted as a run or a saving). */
  tokens?: Tokens;
  cost?: number;
  /** `auditFix`: the correction round in the answering worker's own session. */
  fix?: AuditFix;
}

/** The correction round of a disputed answer: annotates the answer, never replaces it. */
export interface AuditFix {
  /** The correction round's run (none when it could not be started). */
  run?: string;
  state: "running" | "done" | "failed";
  /** The worker's corrected answer. */
  answer?: string;
  message?: string;
  tokens?: Tokens;
  cost?: number;
}

/** Settings a run keeps from its creation. */
export interface FrozenSettings {
  maxParallel: number;
  /** Per-worker caps on runs at once. */
  limits: Record<string, number>;
  /** The config's default models and prices as they were (the receipt is priced with these). */
  config?: Pick<Config, "models" | "costs" | "workerPrices" | "primary" | "price">;
  /** Days an answer may be reused from the answer cache (0: off; absent: off). */
  cacheDays?: number;
  /** The config's audit settings then: the sample rate and the correction round. */
  audit?: { rate: number; fix: boolean };
  /**
   * The config's `sandbox` value then (null: not set), checked against the disk when the run
   * starts. Absent on records made before it was frozen (the config is read then).
   */
  sandbox?: unknown;
  /** Whether the run's end is announced, and the config's own command for it. */
  notify?: { on: boolean; command?: string };
}

/** An empty progress. */
export function emptyProgress(): Progress {
  return { steps: 0, tools: 0, tokens: { input: 0, output: 0, cached: 0, reasoning: 0 } };
}

/** True when the state is final. */
export function isFinal(state: RunState): boolean {
  return state === "done" || state === "problem" || state === "lost";
}

const MODES: readonly string[] = ["read", "write", "isolate"];

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
  if (!MODES.includes(r.mode as string)) return "an unknown mode";
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
