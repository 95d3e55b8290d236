/**
 * `history stats`: runs, success rate, time, tokens and savings over a period, in total, per
 * worker and model, and per day. Runs that ended rate limited or out of quota are counted apart
 * (a provider's limit says nothing about the worker) and left out of the success rate.
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { MONEY_KEYS, MONEY_SUMS, moneyFigures, type MoneySums } from "./savings.ts";

/** Outcomes that are a provider's limit, not the worker's failure. */
const LIMIT_OUTCOMES = ["rate_limited", "quota"] as const;

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
  ${MONEY_SUMS}`;

interface AggregateRow extends MoneySums {
  label: string;
  runs: number;
  ok: number;
  limited: number;
  total_ms: number;
}

/** A row from SQL sums. */
function statsRow(row: AggregateRow): StatsRow {
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
    ...moneyFigures(row),
  };
}

/** Adds the sums of `b` into `a`. */
function add(a: AggregateRow, b: AggregateRow): void {
  for (const key of SUM_KEYS) a[key] += b[key];
}

const SUM_KEYS = ["runs", "ok", "limited", "total_ms", ...MONEY_KEYS] as const;

function empty(label: string): AggregateRow {
  const row = { label } as AggregateRow;
  for (const key of SUM_KEYS) row[key] = 0;
  return row;
}

/**
 * The stats of the runs that ended since `since` (all runs when null). One scan of the runs
 * grouped by target and day; the total, the targets and the days are added up from its rows.
 */
export function computeStats(db: DatabaseSync, since: number | null, until: number): Stats {
  // `+ended_at`: a period usually holds a large share of the runs, where a scan beats the index.
  const where = since === null ? "" : "WHERE +ended_at >= ?";
  const params: SQLInputValue[] = since === null ? [] : [since];
  const groups = db.prepare(
    `SELECT worker, model, date(ended_at / 1000, 'unixepoch', 'localtime') AS label, ${AGGREGATES}
     FROM runs ${where} GROUP BY worker, model, label`,
  ).all(...params) as unknown as (AggregateRow & { worker: string | null; model: string | null })[];
  const limitedAttempts = db.prepare(
    `SELECT a.worker, a.model, COUNT(*) AS n FROM attempts a JOIN runs r ON r.n = a.run_n
     WHERE a.outcome IN (${LIMITS})${since === null ? "" : " AND r.ended_at >= ?"}
     GROUP BY a.worker, a.model`,
  ).all(...params) as unknown as { worker: string; model: string | null; n: number }[];

  const total = empty("all");
  const targets = new Map<string, AggregateRow & { worker: string; model: string | null }>();
  const days = new Map<string, AggregateRow>();
  const key = (w: string | null, m: string | null) => `${w ?? "-"}:${m ?? ""}`;
  const target = (worker: string | null, model: string | null) => {
    const k = key(worker, model);
    let row = targets.get(k);
    if (row === undefined) {
      const w = worker ?? "-";
      row = { ...empty(model ? `${w}:${model}` : w), worker: w, model };
      targets.set(k, row);
    }
    return row;
  };
  for (const g of groups) {
    add(total, g);
    add(target(g.worker, g.model), g);
    let day = days.get(g.label);
    if (day === undefined) days.set(g.label, day = empty(g.label));
    add(day, g);
  }
  const limitedBy = new Map<string, number>();
  for (const r of limitedAttempts) {
    // A target that only ever hit a limit (every run moved on to another worker) gets a row too.
    target(r.worker, r.model);
    limitedBy.set(key(r.worker, r.model), r.n);
  }
  const targetRows: TargetStatsRow[] = [...targets.entries()].map(([k, t]) => ({
    ...statsRow(t),
    worker: t.worker,
    model: t.model,
    limitedAttempts: limitedBy.get(k) ?? 0,
  })).sort((a, b) => b.runs - a.runs || a.label.localeCompare(b.label));
  return {
    since,
    until,
    total: statsRow(total),
    targets: targetRows,
    days: [...days.values()].sort((a, b) => a.label.localeCompare(b.label)).map(statsRow),
  };
}
