/**
 * Running an eval: the questions' truths are computed first (questions.ts), then every worker
 * gets every question at once, as a crew of read runs of its own group in the background host
 * (each `-W` is one target: no fallback, no audit), and once all have ended each reply is read
 * (answer.ts) and scored (score.ts) into one row per worker: the score, per kind, the failures
 * (runs that did not end ok or gave no `ANSWER:` line), and the median time and tokens.
 */
import type { HeldSys } from "../../store/state.ts";
import type { RunRecord } from "../../store/record.ts";
import { burnedTokens } from "../../receipts/receipt.ts";
import type { RunRequest } from "../request/request.ts";
import { type Answered, evalTask, parseAnswered } from "./answer.ts";
import {
  type BoundQuestion,
  loadQuestions,
  QUESTION_KINDS,
  type QuestionKind,
} from "./questions.ts";
import { scoreAnswer } from "./score.ts";

/** What the eval needs of the engine: start a crew, wait for a group. */
export interface EvalEngine {
  start(request: RunRequest): Promise<{ ids: string[]; group?: string }>;
  wait(selector: { group: string }, options?: { signal?: AbortSignal }): Promise<RunRecord[]>;
}

/** One question's result for one worker. */
export interface EvalAnswer {
  id: string;
  kind: QuestionKind;
  run: string;
  outcome: string;
  answered: Answered | null;
  score: number;
  ms: number | null;
  tokens: number;
  /** Why it counts as a failure. */
  failure?: string;
}

/** A score out of a maximum. */
export interface Scored {
  score: number;
  max: number;
}

/** One worker's row. */
export interface EvalRow extends Scored {
  /** The worker as given (`-W`), or `default` for the configured one. */
  worker: string;
  group: string;
  byKind: Record<QuestionKind, Scored>;
  failures: number;
  medianMs: number | null;
  medianTokens: number | null;
  answers: EvalAnswer[];
}

/** An eval's result (what `eval --json` prints). */
export interface EvalResult {
  file: string;
  dir: string;
  questions: BoundQuestion[];
  workers: EvalRow[];
}

/** Options of `runEval`. */
export interface EvalOptions {
  /** The workers (each one target); none: the configured default worker. */
  workers?: readonly string[];
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The groups' name stem. @default `eval-` and the time */
  group?: string;
}

/** The median of some numbers (null for none). */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function answerOf(q: BoundQuestion, record: RunRecord, dir: string): EvalAnswer {
  const ok = record.outcome === "ok";
  const answered = ok && record.answer !== undefined
    ? parseAnswered(record.answer, q.kind, dir)
    : null;
  const ms = record.endedAt !== undefined && record.startedAt !== undefined
    ? record.endedAt - record.startedAt
    : null;
  const failure = !ok
    ? `the run ended ${record.outcome ?? record.state}${
      record.message ? `: ${record.message}` : ""
    }`
    : answered === null
    ? "the reply has no ANSWER line"
    : undefined;
  return {
    id: q.id,
    kind: q.kind,
    run: record.id,
    outcome: record.outcome ?? record.state,
    answered,
    score: round(scoreAnswer(answered, q.truth)),
    ms,
    tokens: burnedTokens(record.receipt?.tokens ?? record.progress.tokens),
    ...(failure === undefined ? {} : { failure }),
  };
}

function rowOf(worker: string, group: string, answers: EvalAnswer[]): EvalRow {
  const byKind = Object.fromEntries(QUESTION_KINDS.map((kind) => {
    const mine = answers.filter((a) => a.kind === kind);
    return [kind, { score: round(mine.reduce((s, a) => s + a.score, 0)), max: mine.length }];
  })) as Record<QuestionKind, Scored>;
  const ran = answers.filter((a) => a.outcome === "ok");
  return {
    worker,
    group,
    score: round(answers.reduce((s, a) => s + a.score, 0)),
    max: answers.length,
    byKind,
    failures: answers.filter((a) => a.failure !== undefined).length,
    medianMs: median(ran.flatMap((a) => (a.ms === null ? [] : [a.ms]))),
    medianTokens: median(ran.map((a) => a.tokens)),
    answers,
  };
}

/** Runs the questions of `path` against the workers and scores them. */
export async function runEval(
  sys: HeldSys,
  engine: EvalEngine,
  path: string,
  options: EvalOptions = {},
): Promise<EvalResult> {
  const { file, dir, questions } = await loadQuestions(sys, path);
  const workers = options.workers?.length ? [...options.workers] : [undefined];
  const stem = options.group ?? `eval-${sys.clock.now().toString(36)}`;
  const tasks = questions.map((q) => evalTask(q.question, q.kind));
  const started = [];
  for (const [i, worker] of workers.entries()) {
    const group = `${stem}-${i + 1}`;
    await engine.start({
      tasks,
      mode: "read",
      dir,
      group,
      noFallback: true,
      audit: false,
      ...(worker === undefined ? {} : { worker }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    started.push({ worker: worker ?? "default", group });
  }
  const rows: EvalRow[] = [];
  for (const { worker, group } of started) {
    const records = await engine.wait({ group }, options.signal ? { signal: options.signal } : {});
    const byTask = [...records].sort((a, b) => (a.taskIndex ?? 0) - (b.taskIndex ?? 0));
    rows.push(rowOf(worker, group, questions.map((q, i) => answerOf(q, byTask[i]!, dir))));
  }
  return { file, dir, questions, workers: rows };
}
