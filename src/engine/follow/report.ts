/**
 * The one typed report of a run: the shape behind the text report, `show --json`,
 * `wait --json`, and the structured results of MCP tools and the dashboard's API. It is the run
 * record as the run folder keeps it; `RunReportSchema` is its runtime check and JSON Schema, and
 * the compiler keeps the two in step (`_inStep` below fails to type-check when they drift).
 */
import { z } from "zod/v4";
import { OUTCOME_CLASSES, RUN_STATES } from "../../events/mod.ts";
import type { RunRecord } from "../../store/record.ts";
import { WORKER_NAMES } from "../../workers/types.ts";

const tokens = z.object({
  input: z.number(),
  output: z.number(),
  cached: z.number(),
  reasoning: z.number(),
});
const target = z.object({ worker: z.enum(WORKER_NAMES), model: z.string().optional() });
const snapshot = z.object({
  tree: z.string(),
  head: z.string().nullable(),
  index: z.string().optional(),
});

/** The schema of a run report. */
const changedFile = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted"]),
  added: z.number(),
  removed: z.number(),
  binary: z.boolean(),
  mode: z.object({ from: z.string(), to: z.string() }).optional()
    .describe("the git mode before and after, when it changed"),
  shared: z.enum(["split", "unsure"]).optional()
    .describe(
      "the user changed it too: only the worker's segments are its own (or cannot be told)",
    ),
});
const fileEntry = z.object({ mode: z.string(), blob: z.string() });

const finding = z.object({
  severity: z.enum(["Critical", "Important", "Minor"]),
  file: z.string().optional(),
  line: z.number().optional(),
  text: z.string(),
});
const verdict = z.object({
  spec: z.enum(["PASS", "FAIL"]).optional(),
  quality: z.enum(["APPROVED", "NEEDS-FIXES"]).optional(),
  findings: z.array(finding),
  cannotVerify: z.array(z.string()),
  complete: z.boolean(),
});
const reviewKind = z.enum(["task", "fix", "range"]);
const auditSpend = { tokens: tokens.optional(), cost: z.number().optional() };
const auditResult = z.object({
  run: z.string().optional(),
  worker: z.enum(WORKER_NAMES).optional(),
  model: z.string().optional(),
  state: z.enum(["running", "done", "failed"]),
  sampled: z.boolean(),
  verdict: z.enum(["AGREE", "PARTLY", "DISAGREE"]).optional(),
  disputed: z.array(z.string()),
  message: z.string().optional(),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  ...auditSpend,
  fix: z.object({
    run: z.string().optional(),
    state: z.enum(["running", "done", "failed"]),
    answer: z.string().optional(),
    message: z.string().optional(),
    ...auditSpend,
  }).optional(),
});

export const RunReportSchema = z.object({
  schemaVersion: z.number(),
  id: z.string(),
  state: z.enum(RUN_STATES),
  mode: z.enum(["read", "write", "isolate"]),
  task: z.string(),
  cwd: z.string(),
  repoRoot: z.string().optional(),
  group: z.string().optional(),
  chain: z.array(target),
  effort: z.string().optional(),
  web: z.boolean(),
  timeoutMs: z.number(),
  verifyCommand: z.string().optional(),
  createdAt: z.number(),
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  attempts: z.array(target.extend({
    startedAt: z.number(),
    endedAt: z.number().optional(),
    outcome: z.enum(OUTCOME_CLASSES).optional(),
    message: z.string().optional(),
    sessionId: z.string().optional(),
  })),
  progress: z.object({
    steps: z.number(),
    tools: z.number(),
    last: z.string().optional(),
    denied: z.number().optional(),
    tokens,
    cost: z.number().optional(),
  }),
  outcome: z.enum(OUTCOME_CLASSES).optional(),
  exit: z.number().optional(),
  message: z.string().optional(),
  answer: z.string().optional(),
  changes: z.object({
    before: snapshot,
    after: z.string(),
    files: z.array(changedFile),
    /** Files changed while the run worked, not by a tool the worker called. */
    others: z.array(changedFile).optional(),
    patchDigest: z.string().optional(),
    reverted: z.boolean().optional(),
    othersReverted: z.boolean().optional(),
    shared: z.array(z.object({
      path: z.string(),
      segments: z.array(z.object({ before: fileEntry.nullable(), after: fileEntry.nullable() })),
      unsure: z.literal(true).optional(),
    })).optional().describe(
      "files both the worker and the user changed, and the worker's segments",
    ),
    moved: z.object({
      head: z.object({ from: z.string().nullable(), to: z.string().nullable() }).optional(),
      index: z.boolean().optional(),
    }).optional().describe("HEAD or the index moved while the run worked: revert needs `force`"),
    reverting: z.object({ at: z.number() }).optional().describe("a revert cut short"),
    left: z.array(z.object({ path: z.string(), why: z.string(), kept: z.string().optional() }))
      .optional().describe(
        "files the last revert left: the worker's changes could not be taken out alone",
      ),
  }).optional(),
  notes: z.array(z.string()).optional(),
  hidden: z.object({
    credentials: z.object({ count: z.number(), examples: z.array(z.string()) }),
    files: z.object({ count: z.number(), examples: z.array(z.string()) }),
  }).optional().describe(
    "what the sandbox hid from the worker besides Pitroom's own state: credential paths of the home folder and secret-looking files of the tree",
  ),
  receipt: z.object({ tokens, saved: z.number(), primary: z.string() }).optional(),
  files: z.array(z.object({ path: z.string(), bytes: z.number() })).optional(),
  sections: z.object({
    summary: z.string(),
    findings: z.array(z.object({ text: z.string(), ref: z.string().optional() })),
    filesChanged: z.array(z.string()),
    verified: z.array(z.string()),
    openIssues: z.array(z.string()),
  }).optional().describe("the answer's sections, when it follows the answer format"),
  refs: z.object({
    verified: z.number(),
    total: z.number(),
    failed: z.array(z.object({ ref: z.string(), reason: z.string() })),
  }).optional().describe("the reference check: `path:line` citations that held, of all"),
  evidence: z.array(z.object({ kind: z.string(), message: z.string() })).optional()
    .describe("claims of the answer that the run or the tree contradict"),
  fresh: z.boolean().optional(),
  cached: z.object({ from: z.string(), at: z.number() }).optional()
    .describe("answered from the answer cache: the earlier run and when it ended"),
  plan: z.object({
    path: z.string(),
    step: z.number(),
    title: z.string(),
    tier: z.string().optional(),
  }).optional().describe("a plan run: the plan file and task"),
  implementer: z.object({ status: z.string(), openIssues: z.array(z.string()) }).optional()
    .describe("a plan run: the status line and open issues of its answer"),
  review: z.object({
    kind: reviewKind,
    of: z.string().optional(),
    previous: z.string().optional(),
    range: z.object({
      typed: z.string(),
      base: z.string(),
      head: z.string(),
      commits: z.number(),
    }).optional(),
    plan: z.string().optional(),
    redacted: z.object({ files: z.array(z.string()), secrets: z.number() }),
    implementer: z.string().optional(),
    verdict: verdict.optional(),
  }).optional().describe("a review run: what it reviewed and its verdict"),
  reviews: z.array(verdict.extend({ run: z.string(), kind: reviewKind, at: z.number() }))
    .optional().describe("the reviews of this run, oldest first"),
  auditWanted: z.boolean().optional(),
  auditOf: z.object({
    run: z.string(),
    kind: z.enum(["audit", "fix"]),
    fix: z.boolean().optional(),
  }).optional(),
  /** The latest audit of the answer by another worker: verdict, disputed claims, correction. */
  audit: auditResult.optional(),
});

/** A run report. */
export type RunReport = RunRecord;

/** A run record is a report: this fails to compile when the schema and the record drift. */
function _inStep(record: RunRecord): z.input<typeof RunReportSchema> {
  return record;
}

/** The JSON Schema of a run report (for MCP tools and the dashboard's API docs). */
export function runReportJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(RunReportSchema) as Record<string, unknown>;
}
