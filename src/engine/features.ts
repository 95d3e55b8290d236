/**
 * The features above a run, registered as its hooks (run/hooks.ts): the answer cache and the
 * answer's checks (answer/), a review's verdict (review/), what follows a run and what a lost
 * audit leaves (audit/), the host's notification when a background run ends (runs/notify.ts). The door imports this module, so every run it starts, here or in the
 * host, has them.
 */
import { cachedAnswer, rememberAnswer } from "./answer/cache.ts";
import { checkAnswer } from "./answer/check.ts";
import { afterRun } from "./audit/complete.ts";
import { concludeAnswer, recordReview } from "./review/conclude.ts";
import { registerRunHooks } from "./run/hooks.ts";
import { notifyEnded } from "./runs/notify.ts";

registerRunHooks({
  cachedAnswer,
  checkAnswer,
  concludeAnswer,
  recordReview,
  rememberAnswer,
  afterRun,
  afterLost: (sys, lost) => lost.auditOf === undefined ? Promise.resolve() : afterRun(sys, lost),
  notifyEnded,
});
