/**
 * Caps on one run: at most this many tokens, this much money, this many steps. A worker that
 * reaches one is stopped like `pitroom stop` would (its group is killed), what it did is kept,
 * and the run says which cap it hit. Pure apart from nothing: the walk checks on each progress.
 */
import { grouped } from "../../receipts/format.ts";
import type { Progress, RunRecord } from "../../store/record.ts";
import { burnedTokens } from "../../receipts/receipt.ts";
import { UsageError } from "../../sys/errors.ts";

/** The caps of a run; each is optional. */
export type Caps = NonNullable<RunRecord["caps"]>;

const NAMES = ["maxTokens", "maxCost", "maxSteps"] as const;

/** The caps from the config's `caps` object and the flags (flags win); bad values refused. */
export function capsFrom(
  config: Record<string, unknown> | undefined,
  flags: Partial<Record<(typeof NAMES)[number], number | undefined>>,
  warnings: string[],
): Caps {
  const caps: Caps = {};
  for (const name of NAMES) {
    const typed = flags[name];
    if (typed !== undefined) {
      if (!(typed > 0)) throw new UsageError(`\`caps.${name}\` must be more than 0`);
      caps[name] = typed;
      continue;
    }
    const value = config?.[name];
    if (value === undefined) continue;
    if (typeof value === "number" && value > 0) caps[name] = value;
    else warnings.push(`Config key "caps.${name}" should be a number above 0: ignored`);
  }
  return caps;
}

/** Which cap `progress` reached, as words for the report; null when none. */
export function capHit(caps: Caps, progress: Progress, cost: number | undefined): string | null {
  const burned = burnedTokens(progress.tokens);
  if (caps.maxTokens !== undefined && burned >= caps.maxTokens) {
    return `the token cap (${grouped(burned)} of ${grouped(caps.maxTokens)} tokens)`;
  }
  if (caps.maxCost !== undefined && cost !== undefined && cost >= caps.maxCost) {
    return `the cost cap ($${cost.toFixed(4)} of $${caps.maxCost})`;
  }
  if (caps.maxSteps !== undefined && progress.steps >= caps.maxSteps) {
    return `the step cap (${progress.steps} of ${caps.maxSteps} steps)`;
  }
  return null;
}
