/**
 * A run's receipt, computed from its record and the prices (pure): the tokens the worker burned,
 * the tokens its report hands back, the compression between them, what the worker cost (reported
 * by the CLI, else priced) and what the primary would have charged for the same tokens.
 */
import type { Receipt, RunRecord, Tokens } from "../store/record.ts";
import { isFreeModel, listPrice, type Price, PRICES_TAKEN, tableKey } from "./prices.ts";
import { completePrice, type Pricing } from "./pricing.ts";
import { compressionOf } from "../store/returned.ts";

/** About this many characters make a token. */
const CHARS_PER_TOKEN = 4;

/** The fixed lines of a report around the answer (header, worker, work, tokens, receipt). */
const REPORT_FRAME_CHARS = 360;

/** Tokens the worker burned: input (fresh and cached), output and reasoning. */
export function burnedTokens(tokens: Tokens): number {
  return tokens.input + tokens.cached + tokens.output + tokens.reasoning;
}

/** USD for `tokens` at `price` (reasoning is billed as output). */
export function costOf(tokens: Tokens, price: Price): number {
  return (tokens.input * price.input + tokens.cached * price.cached +
    (tokens.output + tokens.reasoning) * price.output) / 1_000_000;
}

/**
 * An estimate of the tokens a run's report hands to the caller (its answer or problem, its
 * changed-file lines and the report's fixed lines, at about four characters a token): the
 * receipt's figure until the run is handed over, when the bytes handed over replace it
 * (store/returned.ts).
 */
export function returnedTokensOf(record: RunRecord): number {
  let chars = REPORT_FRAME_CHARS + (record.answer?.length ?? 0);
  if (record.state !== "done" && record.message) chars += record.message.length;
  for (const file of record.changes?.files ?? []) chars += file.path.length + 16;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

function usd(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}

function configured(pricing: Pricing, model: string): Price | undefined {
  const prices = pricing.workerPrices;
  for (const key of [model, model.slice(model.lastIndexOf("/") + 1), tableKey(model)]) {
    if (Object.hasOwn(prices, key)) return completePrice(prices[key]!);
  }
  return undefined;
}

/** What the worker cost and where the figure comes from. */
export function workerCostOf(
  record: RunRecord,
  model: string | undefined,
  pricing: Pricing,
): Pick<Receipt, "workerCost" | "workerCostSource"> {
  const reported = record.progress.cost;
  if (reported !== undefined && reported > 0) {
    return { workerCost: reported, workerCostSource: "reported" };
  }
  if (model !== undefined && isFreeModel(model)) return { workerCost: 0, workerCostSource: "free" };
  if (reported !== undefined) return { workerCost: 0, workerCostSource: "reported" };
  if (model === undefined) return { workerCost: 0, workerCostSource: "unknown" };
  const own = configured(pricing, model);
  if (own !== undefined) {
    return { workerCost: costOf(record.progress.tokens, own), workerCostSource: "config" };
  }
  const list = listPrice(model);
  if (list !== undefined) {
    return { workerCost: costOf(record.progress.tokens, list), workerCostSource: "price-table" };
  }
  return { workerCost: 0, workerCostSource: "unknown" };
}

/** Options of `makeReceipt`. */
export interface ReceiptOptions {
  pricing: Pricing;
  /** The configured default model per worker (`models`), for attempts that named none. */
  defaultModels?: Record<string, string>;
}

/**
 * The receipt of a run (pure). The tokens are the whole run's (every attempt); they are priced
 * at the model of the last attempt, the one that gave the outcome.
 */
export function makeReceipt(record: RunRecord, options: ReceiptOptions): Receipt {
  const { pricing } = options;
  const attempt = record.attempts.at(-1);
  const model = attempt?.model ??
    (attempt !== undefined ? options.defaultModels?.[attempt.worker] : undefined);
  const tokens = { ...record.progress.tokens };
  const returnedTokens = returnedTokensOf(record);
  const { workerCost, workerCostSource } = workerCostOf(record, model, pricing);
  const primaryCost = costOf(tokens, pricing.primaryPrice);
  return {
    tokens,
    returnedTokens,
    compression: compressionOf(tokens, returnedTokens),
    workerCost: usd(workerCost),
    workerCostSource,
    primary: pricing.primary,
    primaryCost: usd(primaryCost),
    saved: usd(primaryCost - workerCost),
    ...(model !== undefined ? { model } : {}),
    pricesTaken: PRICES_TAKEN,
    ...(record.progress.tokensUnreported === true ? { tokensUnreported: true } : {}),
  };
}
