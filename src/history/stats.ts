/**
 * `history stats`: runs, success rate, time, tokens and savings over a period, in total, per
 * worker and model, and per day. Runs that ended rate limited or out of quota are counted apart
 * (a provider's limit says nothing about the worker) and left out of the success rate.
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";

/** Outcomes that are a provider's limit, not the worker's failure. */
export const LIMIT_OUTCOMES = ["rate_limited", "quota"] as const;

/** Figures of a set of runs. */
export interface StatsRow {
  /** `all`, `worker:model` (or `worker`), or a day `YYYY-MM-DD` (local time). */
  label: string;
  runs: number;
  ok: number;
  /** Runs that did not succeed for another reason than a limit. */
  problems: number;
  /** Runs that ended rate limited or out of quota. */
  limited: number;
  /** `ok / (ok + problems)`; null without such runs. */
  successRate: number | null;
  totalMs: number;
  avgMs: number;
  tokens: { input: number; output: number; cached: number; reasoning: number };
  returnedTokens: number;
  workerCost: number;
  primaryCost: number;
  saved: number;
}

/** A per-target row, with the attempts a limit stopped (the run may have moved on). */
export interface TargetStatsRow extends StatsRow {
  worker: string;
  model: string | null;
  limitedAttempts: number;
}

/** The stats of a period. */
export interface Stats {
  since: number | null;
  until: number;
  total: StatsRow;
  targets: TargetStatsRow[];
  days: StatsRow[];
}

const LIMITS = LIMIT_OUTCOMES.map((o) => `'${o}'`).join(", ");

const AGGREGATES = `
  COUNT(*) AS runs,
  COALESCE(SUM(outcome = 'ok'), 0) AS ok,
  COALESCE(SUM(outcome IN (${LIMITS})), 0) AS limited,
  COALESCE(SUM(duration_ms), 0) AS total_ms,
  COALESCE(SUM(tokens_in), 0) AS tokens_in,
  COALESCE(SUM(tokens_out), 0) AS tokens_out,
  COALESCE(SUM(tokens_cached), 0) AS tokens_cached,
  COALESCE(SUM(tokens_reasoning), 0) AS tokens_reasoning,
  COALESCE(SUM(returned_tokens), 0) AS returned_tokens,
  COALESCE(SUM(worker_cost), 0) AS worker_cost,
  COALESCE(SUM(primary_cost), 0) AS primary_cost,
  COALESCE(SUM(saved), 0) AS saved`;

interface AggregateRow {
  label: string;
  runs: number;
  ok: number;
  limited: number;
  total_ms: number;
  tokens_in: number;
  tokens_out: number;
  tokens_cached: number;
  tokens_reasoning: number;
  returned_tokens: number;
  worker_cost: number;
  primary_cost: number;
  saved: number;
}

/** A row from SQL sums. */
export function statsRow(row: AggregateRow): StatsRow {
  const problems = row.runs - row.ok - row.limited;
  return {
    label: row.label,
    runs: row.runs,
    ok: row.ok,
    problems,
    limited: row.limited,
    successRate: row.ok + problems === 0 ? null : row.ok / (row.ok + problems),
    totalMs: row.total_ms,
    avgMs: row.runs === 0 ? 0 : Math.round(row.total_ms / row.runs),
    tokens: {
      input: row.tokens_in,
      output: row.tokens_out,
      cached: row.tokens_cached,
      reasoning: row.tokens_reasoning,
    },
    returnedTokens: row.returned_tokens,
    workerCost: row.worker_cost,
    primaryCost: row.primary_cost,
    saved: row.saved,
  };
}

function period(since: number | null): { where: string; params: SQLInputValue[] } {
  return since === null
    ? { where: "", params: [] }
    : { where: "WHERE runs.ended_at >= ?", params: [since] };
}

/** The stats of the runs that ended since `since` (all runs when null). */
export function computeStats(db: DatabaseSync, since: number | null, until: number): Stats {
  const { where, params } = period(since);
  const all = <T>(sql: string) => db.prepare(sql).all(...params) as unknown as T[];
  const total = all<AggregateRow>(`SELECT 'all' AS label, ${AGGREGATES} FROM runs ${where}`)[0]!;
  const targets = all<AggregateRow & { worker: string; model: string | null }>(
    `SELECT worker, model, ${AGGREGATES}, '' AS label FROM runs ${where}
     GROUP BY worker, model ORDER BY runs DESC, worker, model`,
  );
  const limitedAttempts = all<{ worker: string; model: string | null; n: number }>(
    `SELECT a.worker, a.model, COUNT(*) AS n FROM attempts a JOIN runs ON runs.n = a.run_n
     ${where ? `${where} AND` : "WHERE"} a.outcome IN (${LIMITS}) GROUP BY a.worker, a.model`,
  );
  const days = all<AggregateRow>(
    `SELECT date(ended_at / 1000, 'unixepoch', 'localtime') AS label, ${AGGREGATES}
     FROM runs ${where} GROUP BY label ORDER BY label`,
  );
  const key = (w: string | null, m: string | null) => `${w ?? "-"}:${m ?? ""}`;
  const limitedBy = new Map(limitedAttempts.map((r) => [key(r.worker, r.model), r.n]));
  const targetRows: TargetStatsRow[] = targets.map((t) => {
    const k = key(t.worker, t.model);
    const n = limitedBy.get(k) ?? 0;
    limitedBy.delete(k);
    return {
      ...statsRow({ ...t, label: t.model ? `${t.worker}:${t.model}` : t.worker ?? "-" }),
      worker: t.worker ?? "-",
      model: t.model,
      limitedAttempts: n,
    };
  });
  // Targets that only ever hit a limit (every run moved on to another worker).
  for (const r of limitedAttempts) {
    if (!limitedBy.has(key(r.worker, r.model))) continue;
    targetRows.push({
      ...statsRow({
        label: r.model ? `${r.worker}:${r.model}` : r.worker,
        runs: 0,
        ok: 0,
        limited: 0,
        total_ms: 0,
        tokens_in: 0,
        tokens_out: 0,
        tokens_cached: 0,
        tokens_reasoning: 0,
        returned_tokens: 0,
        worker_cost: 0,
        primary_cost: 0,
        saved: 0,
      }),
      worker: r.worker,
      model: r.model,
      limitedAttempts: r.n,
    });
  }
  return { since, until, total: statsRow(total), targets: targetRows, days: days.map(statsRow) };
}
