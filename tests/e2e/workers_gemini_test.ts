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
  asks: {
    // The shell is allowed in write mode, but gemini's own heuristics ask about a symbolic link.
    // (The user's policy folder is replaced by Pitroom's `--policy` file.)
    turn: () => ({ shell: "ln -s src/app.ts asked.ts" }),
  },
});
