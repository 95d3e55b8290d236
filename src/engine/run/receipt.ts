/**
 * Receipts and prices: what a run cost and what it saved. When a run ends, the engine asks
 * `receiptFor`, which reads the prices from the config (pricing.ts, over the built-in table of
 * prices.ts) and computes the receipt from the record (receipt.ts); the receipt is stored in
 * run.json and shown in every report. `pitroom savings` sums receipts from the history
 * (engine/history/savings.ts into the shapes of totals.ts). Printing them (report lines, the
 * savings card and badge) is src/receipts/. Every money figure is an estimate.
 */
import type { HeldSys } from "../../store/state.ts";
import { loadConfig } from "../../store/config.ts";
import type { Receipt, RunRecord } from "../../store/record.ts";
import { resolvePricing } from "../../receipts/pricing.ts";
import { makeReceipt } from "../../receipts/receipt.ts";

/**
 * The receipt of a finished run, priced with the prices frozen into its record when it was
 * created (older records: the config of `sys`); the config's warnings are ignored.
 */
export async function receiptFor(sys: HeldSys, record: RunRecord): Promise<Receipt | undefined> {
  const config = record.settings?.config ?? (await loadConfig(sys.configPath)).config;
  const pricing = resolvePricing(config, sys.env, []);
  return makeReceipt(record, {
    pricing,
    ...(config.models !== undefined ? { defaultModels: config.models } : {}),
  });
}
