/**
 * The shared worker suite (`_suite.ts`) for kilo 7.7.7: model ids are `fake/NAME`, the provider
 * the scripted model server's worker home configures in `kilo/kilo.json`. A kilo run costs about
 * as much CPU as an opencode one (its backend is opencode's), so CI runs only the cases that
 * exercise what differs: a read answer through the sandbox, an in-place edit with revert, each
 * failure class once, and a follow-up in the same session. The permission profiles, the ask case
 * and fallback are opencode's code, run in workers_opencode_test.ts.
 */
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "kilo",
  model: (name) => `fake/${name}`,
  cases: ["read", "edit", "failures", "continue"],
  errors: {
    // kilo retries a 429 as opencode does, backing off from 2 s unless the server names a wait.
    rate_limit: { kind: "rate_limit", retry_after_s: 1 },
    quota: { kind: "quota", retry_after_s: 1 },
  },
  asks: { turn: () => ({ answer: "unused" }) },
});
