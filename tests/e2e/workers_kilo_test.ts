/**
 * The shared worker suite (`_suite.ts`) for kilo 7.7.7: model ids are `fake/NAME`, the provider
 * the scripted model server's worker home configures in `kilo/kilo.json`. A kilo run is slow (about
 * 9 s and 14 s of CPU for a trivial answer, against opencode's 2.3 s: benchmarks/overhead/), so CI
 * runs only what must go through the program: a read answer through the sandbox and each failure
 * class once. Its argv, parser, classifier and permission profiles are opencode's code, run in
 * workers_opencode_test.ts; a follow-up in the same session is a recorded stream
 * (tests/workers/kilo/testdata/resume.jsonl).
 */
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "kilo",
  model: (name) => `fake/${name}`,
  cases: ["read", "failures"],
  errors: {
    // kilo retries a 429 as opencode does, backing off from 2 s unless the server names a wait.
    rate_limit: { kind: "rate_limit", retry_after_s: 1 },
    quota: { kind: "quota", retry_after_s: 1 },
  },
  asks: { turn: () => ({ answer: "unused" }) },
});
