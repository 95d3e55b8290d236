/**
 * Who reviews: `-W` or `--tier` when given; a range review the capable tier; else a backend that
 * is not the implementer's, looked for in the `review` tier, then the capable, standard, default
 * worker, its fallbacks and the cheap tier. When every configured worker is the implementer's
 * backend the review runs there with a warning: a second model is what a review is for.
 */
import { parseChain } from "../core/chain.ts";
import { resolveTier, type Settings, type TierName } from "../core/settings.ts";

/** The reviewer a request gets: a worker chain or a tier, and what the caller should hear. */
export interface ReviewerChoice {
  worker?: string;
  tier?: string;
  warnings: string[];
}

function firstWorker(chain: string): string | undefined {
  try {
    return parseChain(chain)[0]?.worker;
  } catch {
    // A chain the config got wrong is reported by the settings' own warnings.
    return undefined;
  }
}

/** Picks the reviewer (see the module comment). */
export function chooseReviewer(
  settings: Settings,
  options: { worker?: string; tier?: string; implementer?: string; range: boolean },
): ReviewerChoice {
  const implementer = options.implementer;
  const same = (chain: string) => implementer !== undefined && firstWorker(chain) === implementer;
  const warnings: string[] = [];
  if (options.worker !== undefined || options.tier !== undefined) {
    const chain = options.worker ??
      (resolveTier(settings, options.tier as TierName).chain);
    if (same(chain)) {
      warnings.push(
        `The reviewer runs on "${implementer}", the implementer's own backend: a second model catches more`,
      );
    }
    return {
      ...(options.worker === undefined ? {} : { worker: options.worker }),
      ...(options.tier === undefined ? {} : { tier: options.tier }),
      warnings,
    };
  }
  if (options.range) return { tier: "capable", warnings };
  const tiers = settings.tiers;
  const candidates: { tier?: TierName; chain: string | null }[] = [
    { tier: "review", chain: tiers.review.value },
    { tier: "capable", chain: tiers.capable.value },
    { tier: "standard", chain: tiers.standard.value },
    { chain: settings.worker.value },
    ...settings.fallback.value.map((chain) => ({ chain })),
    { tier: "cheap", chain: tiers.cheap.value },
  ];
  for (const c of candidates) {
    if (c.chain === null || c.chain === "" || same(c.chain)) continue;
    return c.tier === undefined ? { worker: c.chain, warnings } : { tier: c.tier, warnings };
  }
  warnings.push(
    `Only one backend is configured ("${implementer}"): the review runs on the implementer's own backend`,
  );
  return tiers.review.value === null ? { warnings } : { tier: "review", warnings };
}
