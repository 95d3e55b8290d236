/**
 * Savings totals over a period: what `pitroom savings` prints and what the card and badge show.
 * Computed from history.db (src/engine/history/savings.ts), rendered by src/receipts/.
 */
import { burnedTokens } from "./receipt.ts";

/** One row of totals (all runs, or one worker/model). */
export interface SavingsRow {
  /** `worker` or `worker:model`; "all" for the total. */
  label: string;
  runs: number;
  ok: number;
  tokens: { input: number; output: number; cached: number; reasoning: number };
  returnedTokens: number;
  workerCost: number;
  primaryCost: number;
  saved: number;
}

/** Tokens a row's workers burned. */
export function rowBurned(row: SavingsRow): number {
  return burnedTokens(row.tokens);
}

/** A row's compression: tokens burned per token returned; null when nothing was returned. */
export function rowCompression(row: SavingsRow): number | null {
  const burned = rowBurned(row);
  return row.returnedTokens > 0 && burned > 0 ? burned / row.returnedTokens : null;
}

/** Totals over a period. */
export interface SavingsTotals {
  /** Start of the period (ms since the epoch); null for all time. */
  since: number | null;
  until: number;
  /** The primary model the savings are measured against. */
  primary: string;
  total: SavingsRow;
  /** Per worker and model, most saved first. */
  rows: SavingsRow[];
}
