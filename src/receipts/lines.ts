/**
 * A receipt as report lines (pure): what the worker burned and returned, what it cost against
 * the primary, and what that saved, worded as the estimate it is.
 */
import { burnedTokens } from "./receipt.ts";
import type { Receipt } from "../store/record.ts";
import { formatRatio, formatUsd, primaryName } from "./format.ts";
import { PRICES_TAKEN } from "./prices.ts";
import { grouped } from "./format.ts";

function usd(value: number): string {
  return formatUsd(value, { precise: true });
}

function n(value: number): string {
  return grouped(value);
}

function workerCostText(receipt: Receipt): string {
  const cost = usd(receipt.workerCost);
  const model = receipt.model ?? "its model";
  switch (receipt.workerCostSource) {
    case "reported":
      return `${cost} (reported by the worker)`;
    case "free":
      return `${cost} (free model)`;
    case "config":
      return `~${cost} (your workerPrices for ${model})`;
    case "price-table":
      return `~${cost} (list price of ${model})`;
    case "unknown":
      return receipt.model === undefined
        ? "unknown (no model named: set one with -m or `models` in the config)"
        : `unknown (no price for ${receipt.model}: add it to workerPrices)`;
  }
}

function savedText(receipt: Receipt): string {
  const primary = primaryName(receipt.primary);
  if (receipt.workerCostSource === "unknown") {
    return `at most ~${usd(receipt.saved)} vs ${primary} (the worker's cost is unknown)`;
  }
  if (receipt.saved < 0) {
    return `none: the worker cost ~${usd(-receipt.saved)} more than ${primary}`;
  }
  return `~${usd(receipt.saved)} vs ${primary}`;
}

/** The receipt lines of a report. */
export function receiptLines(receipt: Receipt): string[] {
  const t = receipt.tokens;
  const burned = burnedTokens(t);
  const ratio = receipt.compression === null
    ? ""
    : ` · ${formatRatio(receipt.compression)} compression`;
  const spent = receipt.tokensUnreported !== true
    ? `${n(burned)} tokens burned`
    : burned === 0
    ? "tokens not reported by the worker"
    : `${n(burned)} tokens burned and more not reported by the worker`;
  return [
    `receipt  ${spent} · ~${n(receipt.returnedTokens)} returned to you${ratio}`,
    `cost     worker ${workerCostText(receipt)} · ${primaryName(receipt.primary)} ~${
      usd(receipt.primaryCost)
    } for the same tokens`,
    `saved    ${savedText(receipt)} (estimates: list prices of ${
      receipt.pricesTaken ?? PRICES_TAKEN
    }, not a bill)`,
  ];
}

/**
 * A receipt in one line, for an agent: what the worker burned, what was returned to it, the
 * compression, and what that saved (`12,235 tokens burned · ~110 returned · 111x compression ·
 * ~$0.0246 saved vs Claude Sonnet`).
 */
export function receiptLine(receipt: Receipt): string {
  const ratio = receipt.compression === null
    ? ""
    : ` · ${formatRatio(receipt.compression)} compression`;
  const primary = primaryName(receipt.primary);
  const saved = receipt.workerCostSource === "unknown"
    ? `at most ~${usd(receipt.saved)} saved vs ${primary}`
    : receipt.saved < 0
    ? `~${usd(-receipt.saved)} more than ${primary}`
    : `~${usd(receipt.saved)} saved vs ${primary}`;
  const burned = burnedTokens(receipt.tokens);
  const spent = receipt.tokensUnreported !== true
    ? `${n(burned)} tokens burned`
    : burned === 0
    ? "tokens not reported"
    : `${n(burned)} tokens burned (more not reported)`;
  return `${spent} · ~${n(receipt.returnedTokens)} returned${ratio} · ${saved}`;
}
