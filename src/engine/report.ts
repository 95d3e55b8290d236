/**
 * The one typed report of a run: the shape behind the text report, `show --json`,
 * `wait --json`, and the structured results of MCP tools and the dashboard's API. It is the run
 * record as the run folder keeps it; `RunReportSchema` is its runtime check and JSON Schema, and
 * the compiler keeps the two in step (`_inStep` below fails to type-check when they drift).
 */
import { z } from "zod/v4";
import { OUTCOME_CLASSES, RUN_STATES } from "../events/mod.ts";
import type { RunRecord } from "../store/record.ts";
import { WORKER_NAMES } from "../workers/types.ts";

const tokens = z.object({
  input: z.number(),
  output: z.number(),
  cached: z.number(),
  reasoning: z.number(),
});
const target = z.object({ worker: z.enum(WORKER_NAMES), model: z.string().optional() });
const snapshot = z.object({ tree: z.string(), head: z.string().nullable() });

/** The schema of a run report. */
const changedFile = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted"]),
  added: z.number(),
  removed: z.number(),
  binary: z.boolean(),
});

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
    reverted: z.boolean().optional(),
    othersReverted: z.boolean().optional(),
  }).optional(),
  notes: z.array(z.string()).optional(),
  receipt: z.object({ tokens, saved: z.number(), primary: z.string() }).optional(),
  files: z.array(z.object({ path: z.string(), bytes: z.number() })).optional(),
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
