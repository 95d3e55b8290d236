/**
 * The shared worker suite (`_suite.ts`) for gemini 0.61.0: the model id is the scenario name (it
 * is the `models/{model}` part of the request URL).
 */
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "gemini",
  model: (name) => name,
  errors: {
    // gemini's 429 says "You exceeded your current quota" (a per-minute quota), which is the
    // quota class for every backend; its slow-down without quota wording is a 503 "overloaded".
    rate_limit: { kind: "overloaded", status: 503 },
  },
  // Only the 503 is driven here: the 404, a quota and a bad key are real gemini runs once in
  // tests/workers/gemini/e2e_test.ts and recorded streams (classify_test.ts); what the program does
  // with each class is the same for every backend (workers_opencode_test.ts runs it).
  failures: ["rate_limit"],
  asks: {
    // The shell is allowed in write mode, but gemini's own heuristics ask about a symbolic link.
    // (The user's policy folder is replaced by Pitroom's `--policy` file.)
    turn: () => ({ shell: "ln -s src/app.ts asked.ts" }),
  },
});
