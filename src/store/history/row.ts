/**
 * What a run becomes in history.db (pure): its short row, its texts, its attempts and its steps,
 * from the record and the events file.
 */
import type { PitroomEvent } from "../../events/mod.ts";
import type { RunRecord } from "../record.ts";

/** A text longer than this is cut in a step (the events file keeps the whole text). */
const STEP_TEXT_MAX = 4_000;
/** The searchable text of a run's steps is cut at this length. */
const STEPS_TEXT_MAX = 200_000;

/** The values of one `runs` row, by column. */
export type RunRow = Record<string, string | number | null>;

/** One step of a run: a tool call, a text of the worker, or an error. */
export interface Step {
  seq: number;
  time: number;
  type: "tool" | "text" | "error";
  tool: string | null;
  kind: string | null;
  target: string | null;
  status: string | null;
  text: string | null;
}

/** The record's fields a history row keeps as they are, absent ones as null. */
type Kept<K extends keyof RunRecord> = { [F in K]-?: Exclude<RunRecord[F], undefined> | null };

/**
 * One run a history search found: its row read back, the record's own fields by their record
 * types (absent: null), and what the row adds.
 */
export type SearchHit =
  & Pick<RunRecord, "id" | "createdAt" | "task" | "mode" | "state">
  & Kept<"endedAt" | "group" | "outcome" | "exit" | "answer" | "message" | "host">
  & {
    durationMs: number | null;
    /** The last attempt's worker and model. */
    worker: string | null;
    model: string | null;
    changedFiles: number;
    saved: number | null;
    /** The answer's reference check (`4/5`), when it was checked. */
    refs: string | null;
    /** The best matching passage, matches between the marks (only with a text). */
    snippet?: string;
  };

/** One attempt row. */
export interface AttemptRow {
  seq: number;
  worker: string;
  model: string | null;
  outcome: string | null;
  startedAt: number;
  endedAt: number | null;
}

/**
 * The rowid of a run: its id's time (`YYYYMMDD-HHMMSS`, read as UTC seconds) times 65536 plus its
 * 4 hex digits. Unique per id, the same from every process, and ordered like the ids.
 */
export function rowidOf(id: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-([0-9a-f]{4})$/.exec(id);
  if (m === null) throw new TypeError(`not a run id: "${id}"`);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const seconds = Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
  return seconds * 65536 + parseInt(m[7]!, 16);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + "…";
}

/** The steps of a run from its events. */
export function stepsOf(events: PitroomEvent[]): Step[] {
  const steps: Step[] = [];
  const base = { tool: null, kind: null, target: null, status: null, text: null };
  for (const ev of events) {
    const seq = steps.length;
    if (ev.type === "worker.tool_call") {
      steps.push({
        ...base,
        seq,
        time: ev.time,
        type: "tool",
        tool: ev.tool,
        kind: ev.kind,
        target: cut(ev.target, STEP_TEXT_MAX),
        status: ev.status,
        text: ev.error === undefined ? null : cut(ev.error, STEP_TEXT_MAX),
      });
    } else if (ev.type === "worker.text" && ev.text.trim() !== "") {
      steps.push({ ...base, seq, time: ev.time, type: "text", text: cut(ev.text, STEP_TEXT_MAX) });
    } else if (ev.type === "worker.error") {
      steps.push({
        ...base,
        seq,
        time: ev.time,
        type: "error",
        text: cut(ev.message, STEP_TEXT_MAX),
      });
    }
  }
  return steps;
}

/** The searchable text of a run's steps: tool targets, texts and errors, one a line. */
function stepsText(steps: Step[]): string {
  const lines = steps.map((s) =>
    s.type === "tool" ? `${s.tool} ${s.target}${s.text ? ` ${s.text}` : ""}` : s.text ?? ""
  );
  return cut(lines.join("\n"), STEPS_TEXT_MAX);
}

/** The attempts of a run. */
export function attemptsOf(record: RunRecord): AttemptRow[] {
  return record.attempts.map((a, seq) => ({
    seq,
    worker: a.worker,
    model: a.model ?? null,
    outcome: a.outcome ?? null,
    startedAt: a.startedAt,
    endedAt: a.endedAt ?? null,
  }));
}

/** A message longer than this is cut in the runs table (the record keeps it whole). */
const MESSAGE_MAX = 500;

/** The run's texts: the `run_docs` row (without its rowid). */
export function docRow(
  record: RunRecord,
  steps: Step[],
): { task: string; answer: string | null; steps_text: string; record: string } {
  // The task and the answer are columns of their own; the stored record leaves them out.
  const { task: _task, answer: _answer, ...rest } = record;
  return {
    task: record.task,
    answer: record.answer ?? null,
    steps_text: stepsText(steps),
    record: JSON.stringify(rest),
  };
}

/** The record back from a `run_docs` row. */
export function recordOfDoc(
  doc: { task: string; answer: string | null; record: string },
): unknown {
  const rest: unknown = JSON.parse(doc.record);
  if (typeof rest !== "object" || rest === null) return null;
  return { ...rest, task: doc.task, ...(doc.answer === null ? {} : { answer: doc.answer }) };
}

/** The run's short fields: the `runs` row (without its rowid). */
export function runRow(record: RunRecord): RunRow {
  const last = record.attempts.at(-1) ?? record.chain[0];
  const receipt = record.receipt;
  const tokens = receipt?.tokens ?? record.progress.tokens;
  const reportedCost = record.progress.cost;
  const start = record.startedAt ?? record.createdAt;
  return {
    id: record.id,
    created_at: record.createdAt,
    started_at: record.startedAt ?? null,
    ended_at: record.endedAt ?? null,
    duration_ms: record.endedAt === undefined ? null : record.endedAt - start,
    // An answer from the cache had no worker: it is counted as the cache's, not a worker's.
    worker: record.cached !== undefined ? "cache" : last?.worker ?? null,
    model: record.cached !== undefined ? null : last?.model ?? receipt?.model ?? null,
    mode: record.mode,
    run_group: record.group ?? null,
    state: record.state,
    outcome: record.outcome ?? null,
    exit_code: record.exit ?? null,
    message: record.message === undefined ? null : cut(record.message, MESSAGE_MAX),
    cwd: record.cwd,
    repo_root: record.repoRoot ?? null,
    steps: record.progress.steps,
    tools: record.progress.tools,
    tokens_in: tokens.input,
    tokens_out: tokens.output,
    tokens_cached: tokens.cached,
    tokens_reasoning: tokens.reasoning,
    worker_cost: receipt?.workerCost ?? reportedCost ?? null,
    cost_source: receipt?.workerCostSource ?? (reportedCost === undefined ? null : "reported"),
    primary_model: receipt?.primary ?? null,
    primary_cost: receipt?.primaryCost ?? null,
    saved: receipt?.saved ?? null,
    returned_tokens: receipt?.returnedTokens ?? null,
    changed_files: record.changes?.files.length ?? 0,
    isolated: record.isolation === undefined ? 0 : 1,
    applied: record.isolation?.applied === undefined ? 0 : 1,
    refs_verified: record.refs?.verified ?? null,
    refs_total: record.refs?.total ?? null,
    host: record.host ?? null,
  };
}
