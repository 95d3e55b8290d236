/**
 * Savings totals over a period, from the receipts stored with each run (what `pitroom savings`
 * prints and the card and badge show). Every money figure is an estimate.
 */
import type { HeldSys } from "../../store/state.ts";
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { SavingsRow, SavingsTotals } from "../../receipts/totals.ts";
import { logFailure } from "../../store/log.ts";

/** The token and money sums of a group of runs, as SQL returns them. */
export interface MoneySums {
  tokens_in: number;
  tokens_out: number;
  tokens_cached: number;
  tokens_reasoning: number;
  returned_tokens: number;
  worker_cost: number;
  primary_cost: number;
  saved: number;
}

interface Row extends MoneySums {
  label: string;
  runs: number;
  ok: number;
}

/** The token and money figures of `SavingsRow` and stats rows, from their SQL sums. */
export function moneyFigures(row: MoneySums): Omit<SavingsRow, "label" | "runs" | "ok"> {
  return {
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

/** The token and money columns summed for a group of runs (savings and stats). */
export const MONEY_KEYS = [
  "tokens_in",
  "tokens_out",
  "tokens_cached",
  "tokens_reasoning",
  "returned_tokens",
  "worker_cost",
  "primary_cost",
  "saved",
] as const;

/** `MONEY_KEYS` as SQL sums. */
export const MONEY_SUMS = MONEY_KEYS.map((key) => `COALESCE(SUM(${key}), 0) AS ${key}`).join(
  ",\n  ",
);

const SUMS = `
  COUNT(*) AS runs,
  COALESCE(SUM(outcome = 'ok'), 0) AS ok,
  ${MONEY_SUMS}`;

const SUM_KEYS = ["runs", "ok", ...MONEY_KEYS] as const;

function savingsRow(row: Row): SavingsRow {
  return {
    label: row.label,
    runs: row.runs,
    ok: row.ok,
    ...moneyFigures(row),
  };
}

/** The savings of the runs that ended since `since` (all runs when null). */
export function savingsTotals(
  db: DatabaseSync,
  since: number | null,
  until: number,
): SavingsTotals {
  // `+ended_at`: a period usually holds a large share of the runs, where a scan beats the index.
  const where = since === null ? "" : "WHERE +ended_at >= ?";
  const params: SQLInputValue[] = since === null ? [] : [since];
  const rows = db.prepare(
    `SELECT CASE WHEN model IS NULL THEN COALESCE(worker, '-') ELSE worker || ':' || model END
       AS label, ${SUMS}
     FROM runs ${where} GROUP BY worker, model ORDER BY saved DESC, runs DESC, label`,
  ).all(...params) as unknown as Row[];
  const total: Row = { label: "all" } as Row;
  for (const key of SUM_KEYS) total[key] = rows.reduce((sum, r) => sum + r[key], 0);
  // The primary of the newest receipt: what the user measures against now.
  const primary = db.prepare(
    "SELECT primary_model FROM runs WHERE primary_model IS NOT NULL ORDER BY n DESC LIMIT 1",
  ).get() as { primary_model: string } | undefined;
  return {
    since,
    until,
    primary: primary?.primary_model ?? "unknown",
    total: savingsRow(total),
    rows: rows.map(savingsRow),
  };
}

/** USD saved by runs that ended at or after `since` (for the status line); 0 without a history. */
export async function savedSince(sys: HeldSys, since: number): Promise<number> {
  try {
    const { openExisting } = await import("../../store/history/db.ts");
    const history = await openExisting(sys);
    if (history === null) return 0;
    using _ = history;
    const row = history.db.prepare(
      "SELECT COALESCE(SUM(saved), 0) AS saved FROM runs WHERE ended_at >= ?",
    ).get(since) as { saved: number };
    return row.saved;
  } catch (error) {
    await logFailure(sys, "history.log", { what: "reading the savings", error });
    return 0;
  }
}
