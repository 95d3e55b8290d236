/**
 * The daily budget (`budgetDaily`, USD): today's spend is the worker cost of the runs that ended
 * since local midnight (their receipts in history.db) plus what today's audits cost (recorded
 * on the audited runs). At 80% a run gets a warning (stderr and a note in its report); at 100%
 * only free targets run: the chain is filtered to targets whose price is zero, and a run with
 * none left is refused (exit 3).
 */
import type { HeldSys } from "../../store/state.ts";
import type { Target } from "../../store/record.ts";
import { RefusedError } from "../../sys/errors.ts";
import { isFreeModel, tableKey } from "../../receipts/prices.ts";
import type { PriceInput } from "../../receipts/pricing.ts";
import { targetLabel } from "../core/chain.ts";
import { formatUsd } from "../../receipts/format.ts";

/** The share of the budget from which every run is warned. */
export const BUDGET_WARN_SHARE = 0.8;

/** Local midnight of the day `now` falls in. */
export function startOfDay(now: number): number {
  const day = new Date(now);
  day.setHours(0, 0, 0, 0);
  return day.getTime();
}

/** USD spent since `since`: runs' worker cost and audits' cost (0 without a history). */
export async function spentSince(sys: HeldSys, since: number): Promise<number> {
  const { openExisting } = await import("../../store/history/db.ts");
  const history = await openExisting(sys);
  if (history === null) return 0;
  using _ = history;
  const runs = history.db.prepare(
    "SELECT COALESCE(SUM(worker_cost), 0) AS spent FROM runs WHERE ended_at >= ?",
  ).get(since) as { spent: number };
  const audits = history.db.prepare(
    `SELECT COALESCE(SUM(json_extract(record, '$.audit.cost')), 0)
          + COALESCE(SUM(json_extract(record, '$.audit.fix.cost')), 0) AS spent
     FROM run_docs WHERE json_extract(record, '$.audit.endedAt') >= ?`,
  ).get(since) as { spent: number };
  return runs.spent + audits.spent;
}

/** True when a target costs nothing: a free model, or one the config prices at zero. */
export function isFreeTarget(
  target: Target,
  prices: Readonly<Record<string, PriceInput>>,
): boolean {
  const model = target.model;
  if (model === undefined) return false;
  if (isFreeModel(model)) return true;
  for (const key of [model, model.slice(model.lastIndexOf("/") + 1), tableKey(model)]) {
    if (Object.hasOwn(prices, key)) {
      const price = prices[key]!;
      return (price.input ?? 0) === 0 && (price.output ?? 0) === 0;
    }
  }
  return false;
}

/** What the budget does to a run's chain. */
export interface BudgetCheck {
  chain: Target[];
  /** Said on stderr and kept as a note in the run's report. */
  warning?: string;
}

/** Applies the budget to a chain (pure): warns from 80%, keeps only free targets from 100%. */
export function applyBudget(
  chain: Target[],
  budget: { limit: number; spent: number },
  prices: Readonly<Record<string, PriceInput>>,
): BudgetCheck {
  const { limit, spent } = budget;
  const used = `${formatUsd(spent)} of the daily budget ${formatUsd(limit)}`;
  if (spent < limit * BUDGET_WARN_SHARE) return { chain };
  if (spent < limit) {
    return { chain, warning: `Spent ${used} today (${Math.floor((spent / limit) * 100)}%)` };
  }
  const free = chain.filter((t) => isFreeTarget(t, prices));
  if (free.length === 0) {
    throw new RefusedError(
      "budget_spent",
      `Spent ${used} today: only free workers run, and ${chain.map(targetLabel).join(", ")} ${
        chain.length === 1 ? "is" : "are"
      } not free`,
      { hint: 'give a free model (`worker: opencode:opencode/big-pickle`) or raise "budgetDaily"' },
    );
  }
  const left = chain.filter((t) => !free.includes(t));
  return {
    chain: free,
    warning: `Spent ${used} today: only free workers run${
      left.length > 0 ? ` (left out ${left.map(targetLabel).join(", ")})` : ""
    }`,
  };
}

/** Today's budget check of a chain (the chain unchanged without a budget). */
export async function checkBudget(
  sys: HeldSys,
  chain: Target[],
  options: { limit: number | null; prices: Readonly<Record<string, PriceInput>> },
): Promise<BudgetCheck> {
  if (options.limit === null) return { chain };
  const spent = await spentSince(sys, startOfDay(sys.clock.now()));
  return applyBudget(chain, { limit: options.limit, spent }, options.prices);
}
