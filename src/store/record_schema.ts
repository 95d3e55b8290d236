/**
 * The run record's zod schemas (store/record.ts has the types inferred from them, and no zod):
 * a command that only reads records (status, ls) loads no zod, which costs it about a third of
 * its start-up.
 */
import { z } from "zod/v4";
import { OUTCOME_CLASSES, RUN_STATES } from "../events/mod.ts";
import { MODE_NAMES } from "../workers/names.ts";

/**
 * Builds the record's schemas. A zod schema costs about a millisecond to build, and a command
 * that only reads records needs none: they are built the first time one is asked for.
 */
function build() {
  // A built-in worker (WORKER_NAMES) or a name of the config's `workers` (an ACP agent).
  const worker = z.string();
  const outcome = z.enum(OUTCOME_CLASSES);

  const TargetSchema = z.object({ worker, model: z.string().optional() });

  const examples = z.object({ count: z.number(), examples: z.array(z.string()) });
  const HiddenSchema = z.object({ credentials: examples, files: examples });

  const AttemptSchema = TargetSchema.extend({
    startedAt: z.number(),
    endedAt: z.number().optional(),
    outcome: outcome.optional(),
    message: z.string().optional(),
    sessionId: z.string().optional(),
    /** Cumulative session usage at the end (CLIs that count per session, like codex). */
    sessionTotals: z.record(z.string(), z.number()).optional(),
    workerPid: z.number().optional(),
    /** The sandbox the worker ran in: `bwrap`, `sandbox-exec`, or `none`. */
    sandbox: z.string().optional(),
  });

  const TokensSchema = z.object({
    input: z.number(),
    output: z.number(),
    cached: z.number(),
    reasoning: z.number(),
  });

  const ProgressSchema = z.object({
    steps: z.number(),
    tools: z.number(),
    /** Tool calls the worker's permissions refused (counted in `tools` too). */
    denied: z.number().optional(),
    /** When the worker's latest event came (ms since the epoch): a run goes stalled from it. */
    at: z.number().optional(),
    last: z.string().optional(),
    tokens: TokensSchema,
    cost: z.number().optional(),
    /**
     * An attempt's worker reported no token usage (an ACP agent may not): `tokens` lack its
     * tokens, which are not known (never guessed).
     */
    tokensUnreported: z.boolean().optional(),
  });

  const ChangedFileSchema = z.object({
    path: z.string(),
    status: z.enum(["added", "modified", "deleted"]),
    added: z.number(),
    removed: z.number(),
    binary: z.boolean(),
    mode: z.object({ from: z.string(), to: z.string() }).optional()
      .describe("the git mode before and after, when it changed"),
    /**
     * Write mode: the user changed this file too while the run worked (`split`: only the worker's
     * segments are its own; `unsure`: an edit of each came too close together to tell apart).
     */
    shared: z.enum(["split", "unsure"]).optional()
      .describe(
        "the user changed it too: only the worker's segments are its own (or cannot be told)",
      ),
  });

  const FileEntrySchema = z.object({ mode: z.string(), blob: z.string() });

  const SharedFileSchema = z.object({
    path: z.string(),
    /** The worker's changes: each from the version just before its edit to the one it left. */
    segments: z.array(
      z.object({ before: FileEntrySchema.nullable(), after: FileEntrySchema.nullable() }),
    ),
    /** True when some change to it cannot be told the worker's or the user's. */
    unsure: z.literal(true).optional(),
  });

  const TreeSnapshotSchema = z.object({
    tree: z.string(),
    head: z.string().nullable(),
    /** Where the user's index and stash stood then (write runs: to tell when they moved). */
    index: z.string().optional(),
    /** Untracked directories with no tracked file then (revert keeps them). */
    bareDirs: z.array(z.string()),
    /** What git ignored then (files, and directories with a trailing slash). */
    ignored: z.array(z.string()),
  });

  const LeftFileSchema = z.object({
    path: z.string(),
    /** Why, in a few words ("the changes overlap"). */
    why: z.string(),
    /** The folder of the run holding its versions (the file now, and without the worker's edit). */
    kept: z.string().optional(),
  });

  const ChangesSchema = z.object({
    before: TreeSnapshotSchema,
    /** The tree after the worker. */
    after: z.string(),
    /** The files the worker's recorded tool calls could have changed (what revert undoes). */
    files: z.array(ChangedFileSchema),
    /**
     * Write mode: files changed while the run worked (or, for a lost run, since it began) that no
     * tool call of the worker could have changed; revert leaves them alone unless `--all`. A file
     * both changed is in `files` and here, marked `shared`.
     */
    others: z.array(ChangedFileSchema).optional(),
    /** Write mode: the files both the worker and the user changed, with the worker's segments. */
    shared: z.array(SharedFileSchema).optional().describe(
      "files both the worker and the user changed, and the worker's segments",
    ),
    /** The digest of the run's `patch.diff` (`sha256:<hex>`), to tell a damaged one. */
    patchDigest: z.string().optional(),
    /** True once `pitroom revert` (or the read-only guard) undid them (mirrors the journal). */
    reverted: z.boolean().optional(),
    /** True once `pitroom revert --all` undid `others` too (mirrors the journal). */
    othersReverted: z.boolean().optional(),
    /**
     * What moved in the repository while the run worked (a commit, a branch switch, a stash, a
     * reset): HEAD's commit, or the index's entries. Revert refuses then unless forced.
     */
    moved: z.object({
      head: z.object({ from: z.string().nullable(), to: z.string().nullable() }).optional(),
      index: z.boolean().optional(),
    }).optional().describe("HEAD or the index moved while the run worked: revert needs `force`"),
    /** A revert under way, or cut short (mirrors the journal). */
    reverting: z.object({ at: z.number() }).optional().describe("a revert cut short"),
    /** Files the last revert left as they were, why, and where their versions are kept. */
    left: z.array(LeftFileSchema).optional().describe(
      "files the last revert left: the worker's changes could not be taken out alone",
    ),
  });

  const VerifySchema = z.object({
    command: z.string(),
    ok: z.boolean(),
    /** Exit code; null when killed by a signal. */
    code: z.number().nullable(),
    timedOut: z.boolean(),
    ms: z.number(),
    /** The last few KB of its output (stdout and stderr). */
    output: z.string(),
  });

  const ReceiptSchema = z.object({
    /** Tokens the worker burned. */
    tokens: TokensSchema,
    /**
     * Tokens handed back to the caller, 4 bytes a token: the bytes of `returned` once the run was
     * handed over, else an estimate of its report's size.
     */
    returnedTokens: z.number(),
    /** Worker tokens (input + output) per returned token; null when nothing was returned. */
    compression: z.number().nullable(),
    /** What the worker cost, USD. */
    workerCost: z.number(),
    /** Where `workerCost` came from. */
    workerCostSource: z.enum(["reported", "price-table", "config", "free", "unknown"]),
    /** The primary model the savings are measured against (`sonnet`, `opus`, `gpt-5`, `custom`). */
    primary: z.string(),
    /** What the primary model would have charged for the same tokens, USD. */
    primaryCost: z.number(),
    /** `primaryCost - workerCost`. */
    saved: z.number(),
    /** The model the worker's tokens were priced at (the last attempt's), when known. */
    model: z.string().optional(),
    /** The day the built-in list prices were taken (`2026-11-30`). */
    pricesTaken: z.string().optional(),
    /** A worker reported no token usage: the tokens (and the savings) lack its share. */
    tokensUnreported: z.boolean().optional(),
    /**
     * Measured: the bytes of every result that handed the run over (MCP tool results, the CLI's
     * output of `run` and `wait`) and how many there were (store/returned.ts).
     */
    returned: z.object({ bytes: z.number(), handovers: z.number() }).optional()
      .describe("the bytes of every result that handed the run over, and how many there were"),
  });

  const IsolationSchema = z.object({
    /** The copy's root. */
    copyRoot: z.string(),
    /** Ignored folders symlinked into the copy (`--link`), relative to the repository root. */
    links: z.array(z.string()),
    /**
     * When `pitroom apply` applied the patch to the user's tree, and which files it touched;
     * `before` and `after` are the user's tree just before and after it (a revert undoes exactly
     * that step, merged files included).
     */
    applied: z.object({
      at: z.number(),
      files: z.array(z.string()),
      before: TreeSnapshotSchema.optional(),
      after: z.string().optional(),
    }).optional(),
    /** An apply under way, or cut short (mirrors the journal; `before` on older records). */
    applying: z.object({ at: z.number(), before: TreeSnapshotSchema.optional() }).optional(),
    /** When `pitroom discard` removed the copy (the patch is kept). */
    discarded: z.object({ at: z.number() }).optional(),
  });

  const AnswerSectionsSchema = z.object({
    summary: z.string(),
    findings: z.array(z.object({ text: z.string(), ref: z.string().optional() })),
    filesChanged: z.array(z.string()),
    verified: z.array(z.string()),
    openIssues: z.array(z.string()),
  });

  const RefsCheckSchema = z.object({
    verified: z.number(),
    total: z.number(),
    failed: z.array(z.object({ ref: z.string(), reason: z.string() })),
  });

  const PlanRefSchema = z.object({
    /** The plan file's real path. */
    path: z.string(),
    step: z.number(),
    title: z.string(),
    /** The tier the run was given (the task's, or `--tier`). */
    tier: z.string().optional(),
  });

  const ReviewFindingSchema = z.object({
    severity: z.enum(["Critical", "Important", "Minor"]),
    file: z.string().optional(),
    line: z.number().optional(),
    text: z.string(),
  });

  const ReviewVerdictSchema = z.object({
    spec: z.enum(["PASS", "FAIL"]).optional(),
    quality: z.enum(["APPROVED", "NEEDS-FIXES"]).optional(),
    findings: z.array(ReviewFindingSchema),
    cannotVerify: z.array(z.string()),
    complete: z.boolean(),
  });

  /** `task`: a run's whole change; `fix`: a fix round's diff only; `range`: commits A...B. */
  const reviewKind = z.enum(["task", "fix", "range"]);

  const ReviewInfoSchema = z.object({
    kind: reviewKind,
    /** The run reviewed (task and fix reviews). */
    of: z.string().optional(),
    /** A fix round: the earlier run whose review's findings the package carried. */
    previous: z.string().optional(),
    /** A range review: what was typed, the merge base and the head commit. */
    range: z.object({
      typed: z.string(),
      base: z.string(),
      head: z.string(),
      commits: z.number(),
    }).optional(),
    /** The plan the package carried (its real path). */
    plan: z.string().optional(),
    /** What was redacted from the package: files by name, secrets by content. */
    redacted: z.object({ files: z.array(z.string()), secrets: z.number() }),
    /** The worker that implemented the reviewed run (the reviewer runs on another when it can). */
    implementer: z.string().optional(),
    verdict: ReviewVerdictSchema.optional(),
  });

  /** The review run, its kind and when it ended, with its verdict. */
  const ReviewSummarySchema = ReviewVerdictSchema.extend({
    run: z.string(),
    kind: reviewKind,
    at: z.number(),
  });

  const auditVerdict = z.enum(["AGREE", "PARTLY", "DISAGREE"]);

  const AuditOfSchema = z.object({
    run: z.string(),
    kind: z.enum(["audit", "fix"]),
    /** An audit: start the correction round when it disputes the answer (`auditFix`). */
    fix: z.boolean().optional(),
    /** An audit that ended with a clean reply: its verdict, read from its answer. */
    verdict: auditVerdict.optional(),
    /** With `verdict`: the claims it disputes. */
    disputed: z.array(z.string()).optional(),
  });

  const auditState = z.enum(["running", "done", "failed"]);
  /** What the audit (or its correction round) itself burned and cost (never counted as a run). */
  const auditSpend = { tokens: TokensSchema.optional(), cost: z.number().optional() };

  const AuditFixSchema = z.object({
    /** The correction round's run (none when it could not be started). */
    run: z.string().optional(),
    state: auditState,
    /** The worker's corrected answer. */
    answer: z.string().optional(),
    message: z.string().optional(),
    ...auditSpend,
  });

  const AuditResultSchema = z.object({
    /** The audit run's id (none when no audit could be started). */
    run: z.string().optional(),
    worker: worker.optional(),
    model: z.string().optional(),
    /** `running` until the audit run ends; `failed` when it gave no clean verdict. */
    state: auditState,
    /** Started by the config's sample rate (not asked for). */
    sampled: z.boolean(),
    verdict: auditVerdict.optional(),
    /** The claims of the answer the auditor found wrong or could not confirm. */
    disputed: z.array(z.string()),
    /** Why the audit failed. */
    message: z.string().optional(),
    startedAt: z.number(),
    endedAt: z.number().optional(),
    ...auditSpend,
    /** `auditFix`: the correction round in the answering worker's own session. */
    fix: AuditFixSchema.optional(),
  });

  /** A price, USD per million tokens (the config's `costs`, `workerPrices` and `price`). */
  const price = z.object({
    input: z.number().optional(),
    output: z.number().optional(),
    cached: z.number().optional(),
  });

  const PriceSettingsSchema = z.object({
    models: z.record(z.string(), z.string()).optional(),
    costs: z.record(z.string(), price).optional(),
    workerPrices: z.record(z.string(), price).optional(),
    primary: z.string().optional(),
    price: price.optional(),
    /** The config's ACP workers (`workers`) as they were: the command each name runs. */
    workers: z.record(z.string(), z.unknown()).optional(),
  });

  const FrozenSettingsSchema = z.object({
    maxParallel: z.number(),
    /** Per-worker caps on runs at once. */
    limits: z.record(z.string(), z.number()),
    /** The config's default models and prices as they were (the receipt is priced with these). */
    config: PriceSettingsSchema.optional(),
    /** Days an answer may be reused from the answer cache (0: off; absent: off). */
    cacheDays: z.number().optional(),
    /** The config's audit settings then: the sample rate and the correction round. */
    audit: z.object({ rate: z.number(), fix: z.boolean() }).optional(),
    /**
     * The config's `sandbox` value then (null: not set), checked against the disk when the run
     * starts. Absent on records made before it was frozen (the config is read then).
     */
    sandbox: z.unknown().optional(),
    /** Whether the run's end is announced, and the config's own command for it. */
    notify: z.object({ on: z.boolean(), command: z.string().optional() }).optional(),
    /**
     * The config's `stallAfter` then: how long the worker may send no event before the run
     * shows as stalled. Absent on records made before it was frozen (the default holds).
     */
    stallAfterMs: z.number().optional(),
    /** The run's host as the config described it then (`hosts.NAME`), when it has one. */
    host: z.unknown().optional(),
  });

  /** The run record: the schema behind `run.json`, the report and every `--json`. */
  const RunRecordSchema = z.object({
    schemaVersion: z.number(),
    id: z.string(),
    state: z.enum(RUN_STATES),
    mode: z.enum(MODE_NAMES),
    task: z.string(),
    /** The directory the run works in. */
    cwd: z.string(),
    /** The repository root (the snapshot scope), when the dir is in a git repo. */
    repoRoot: z.string().optional(),
    group: z.string().optional(),
    chain: z.array(TargetSchema),
    effort: z.string().optional(),
    web: z.boolean(),
    /** Wait for a cooling chain to come back instead of failing (`--park`). */
    park: z.boolean().optional(),
    /** While the run waits for its chain's first cooldown to end (`--park`): until when. */
    parked: z.object({ since: z.number(), until: z.number() }).optional(),
    timeoutMs: z.number(),
    /** Caps that stop the worker when reached (`--max-tokens`, `--max-cost`, `--max-steps`). */
    caps: z.object({
      /** Tokens burned: input (fresh and cached), output and reasoning. */
      maxTokens: z.number().optional(),
      /** USD the worker cost (reported by its CLI, else priced). */
      maxCost: z.number().optional(),
      /** Steps (model turns) the worker took. */
      maxSteps: z.number().optional(),
    }).optional(),
    /** A command run in the worker's tree after it succeeded (`--verify`). */
    verifyCommand: z.string().optional(),
    verify: VerifySchema.optional(),
    createdAt: z.number(),
    startedAt: z.number().optional(),
    endedAt: z.number().optional(),
    supervisorPid: z.number().optional(),
    /** Set by the supervisor once it holds the run's lock. */
    supervised: z.boolean().optional(),
    attempts: z.array(AttemptSchema),
    /** Targets left out because they were cooling down. */
    skipped: z.array(TargetSchema.extend({ until: z.number() })).optional(),
    /** An isolate run without a sandbox may hold links leading out of its copy (`--allow-links`). */
    allowLinks: z.boolean().optional(),
    /** A write or isolate run whose worker sees the tree's secret-looking files (`--allow-secrets`). */
    allowSecrets: z.boolean().optional(),
    /** A crew's run: its task's place among the tasks given together (0 first). */
    taskIndex: z.number().optional(),
    /** A follow-up: the run it continues and the worker session it resumes. */
    continues: z.object({
      run: z.string(),
      sessionId: z.string(),
      sessionTotals: z.record(z.string(), z.number()).optional(),
    }).optional(),
    progress: ProgressSchema,
    outcome: outcome.optional(),
    exit: z.number().optional(),
    message: z.string().optional(),
    answer: z.string().optional(),
    changes: ChangesSchema.optional(),
    /** Things the user should know about how the run was set up (shown in the report). */
    notes: z.array(z.string()).optional(),
    /**
     * What the sandbox hid from the worker besides Pitroom's own state: credential paths of the
     * home folder (`~/.ssh`, another CLI's login) and secret-looking files of the tree, with up to
     * three examples of each.
     */
    hidden: HiddenSchema.optional().describe(
      "what the sandbox hid from the worker besides Pitroom's own state: credential paths of the home folder and secret-looking files of the tree",
    ),
    /** Isolate mode: where the copy is and what became of the patch. */
    isolation: IsolationSchema.optional(),
    /** The configured host the workers ran on (`-H`); absent: this machine. */
    host: z.string().optional().describe("the configured host the workers ran on; absent: here"),
    /** What the run cost and saved (set when it ends). */
    receipt: ReceiptSchema.optional(),
    /** Files attached to the task (`run -f`): their paths and sizes; the contents are in the task. */
    files: z.array(z.object({ path: z.string(), bytes: z.number() })).optional(),
    /** The settings resolved when the run was created, frozen (the host does not read them again). */
    settings: FrozenSettingsSchema.optional(),
    /** The answer's sections, when it follows the answer format (engine/answer/format.ts). */
    sections: AnswerSectionsSchema.optional().describe(
      "the answer's sections, when it follows the answer format",
    ),
    /** The reference check of the answer: how many `path:line` held, and each that did not. */
    refs: RefsCheckSchema.optional().describe(
      "the reference check: `path:line` citations that held, of all",
    ),
    /** Claims of the answer the record or the tree contradict (engine/answer/evidence.ts). */
    evidence: z.array(z.object({ kind: z.string(), message: z.string() })).optional()
      .describe("claims of the answer that the run or the tree contradict"),
    /** Asked with `--fresh`: the answer cache was not consulted. */
    fresh: z.boolean().optional(),
    /** The answer cache's key of this run (read runs that may be reused). */
    cacheKey: z.string().optional(),
    /** Answered from the cache: the earlier run whose answer this is, and when it ended. */
    cached: z.object({ from: z.string(), at: z.number() }).optional()
      .describe("answered from the answer cache: the earlier run and when it ended"),
    /** A plan run (`run --plan PLAN --step N`, and its follow-ups): the plan and the task. */
    plan: PlanRefSchema.optional().describe("a plan run: the plan file and task"),
    /** A plan run's implementer status and open issues, parsed from its answer. */
    implementer: z.object({ status: z.string(), openIssues: z.array(z.string()) }).optional()
      .describe("a plan run: the status line and open issues of its answer"),
    /** A review run (`pitroom review`): what it reviewed, and its verdict once it ended. */
    review: ReviewInfoSchema.optional().describe("a review run: what it reviewed and its verdict"),
    /** The reviews of this run, oldest first (their verdicts copied here when each ended). */
    reviews: z.array(ReviewSummarySchema).optional().describe(
      "the reviews of this run, oldest first",
    ),
    /** `--audit` (true) or `--no-audit` (false): over the config's sample rate. */
    auditWanted: z.boolean().optional(),
    /** An audit run (or its correction round): the run it re-checks. Not counted as a run. */
    auditOf: AuditOfSchema.optional(),
    /** The latest audit of this run's answer by another worker (src/engine/audit/). */
    audit: AuditResultSchema.optional(),
  });
  return {
    TargetSchema,
    HiddenSchema,
    AttemptSchema,
    TokensSchema,
    ProgressSchema,
    ChangedFileSchema,
    FileEntrySchema,
    SharedFileSchema,
    TreeSnapshotSchema,
    LeftFileSchema,
    ChangesSchema,
    VerifySchema,
    ReceiptSchema,
    IsolationSchema,
    AnswerSectionsSchema,
    RefsCheckSchema,
    PlanRefSchema,
    ReviewFindingSchema,
    ReviewVerdictSchema,
    ReviewInfoSchema,
    ReviewSummarySchema,
    AuditOfSchema,
    auditVerdict,
    AuditFixSchema,
    AuditResultSchema,
    PriceSettingsSchema,
    FrozenSettingsSchema,
    RunRecordSchema,
  };
}

/** The record's schemas (record.ts infers its types from them). */
export type RecordSchemas = ReturnType<typeof build>;
let built: RecordSchemas | undefined;

/** The run record's schema: the runtime check and JSON Schema of `run.json` and the report. */
export function runRecordSchema(): RecordSchemas["RunRecordSchema"] {
  return (built ??= build()).RunRecordSchema;
}
