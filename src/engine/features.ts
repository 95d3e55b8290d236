/**
 * The features above a run, registered as its hooks (run/hooks.ts): the answer cache and the
 * answer's checks (answer/), a review's or an audit's verdict (review/, audit/), what follows a
 * run and what a lost audit leaves (audit/), the host's notification when a background run ends (runs/notify.ts). The door registers a loader of this module (api.ts), so every run it
 * starts, here or in the host, has them, and a command that executes no run never loads them.
 * Imported for itself (tests), it registers the hooks at once.
 */
import { cachedAnswer, rememberAnswer } from "./answer/cache.ts";
import { checkAnswer } from "./answer/check.ts";
import { afterRun, concludeAudit } from "./audit/complete.ts";
import { concludeAnswer, recordReview } from "./review/conclude.ts";
import { registerRunHooks } from "./run/hooks.ts";
import { notifyEnded } from "./runs/notify.ts";
import type { RunHooks } from "./run/hooks.ts";

/** The features' hooks. */
export const FEATURE_HOOKS: RunHooks = {
  cachedAnswer,
  checkAnswer,
  concludeAnswer: (record) => {
    concludeAnswer(record);
    concludeAudit(record);
  },
  recordReview,
  rememberAnswer,
  afterRun,
  afterLost: async (sys, lost) => {
    // Loaded only for a lost run with a host: what it left running there goes.
    if (lost.host !== undefined) await (await import("./remote/mod.ts")).afterLost(sys, lost);
    if (lost.auditOf !== undefined) await afterRun(sys, lost);
  },
  notifyEnded,
  // Loaded only by a run with a host.
  launcherFor: (sys, record, workspace) =>
    import("./remote/mod.ts").then((m) => m.launcherFor(sys, record, workspace)),
};

registerRunHooks(FEATURE_HOOKS);
