/**
 * The shared worker suite (`_suite.ts`) for kilo 7.7.7: model ids are `fake/NAME`, the provider
 * the scripted model server's worker home configures in `kilo/kilo.json`. A kilo run costs what an
 * opencode run does (the same three-call task at load 4: 12.9 s and 10.8 s of CPU, opencode 11.8 s
 * and 8.0 s), so for CI's budget only what must go through the program runs: a read answer through
 * the sandbox and its rate limit (kilo's own retry bound). Its argv, parser, classifier and permission profiles are opencode's code, run in
 * workers_opencode_test.ts; a follow-up in the same session is a recorded stream
 * (tests/workers/kilo/testdata/resume.jsonl).
 */
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "kilo",
  model: (name) => `fake/${name}`,
  cases: ["read", "failures"],
  // Its rate limit (bounded by KILO_SESSION_RETRY_LIMIT, unbounded by default) through the
  // program; a missing model, quota and auth are opencode's classifier on kilo's recorded streams
  // (tests/workers/kilo/kilo_test.ts), and a missing model through the program is opencode's case.
  failures: ["rate_limit"],
  errors: {
    // kilo retries a 429 as opencode does, backing off from 2 s unless the server names a wait.
    rate_limit: { kind: "rate_limit", retry_after_s: 1 },
  },
  asks: { turn: () => ({ answer: "unused" }) },
});
