/**
 * The shared worker suite (`_suite.ts`) for copilot 1.0.102, driven through its custom-provider
 * variables (BYOK, `COPILOT_OFFLINE`) that the scripted model server's worker home sets: the model
 * id is the scenario name. The isolate and fallback cases are left out for CI's budget: they
 * exercise the engine's copy and chain, the same for every backend, and the backend's part of
 * them (an edit, a missing model's class) is in the cases that run.
 */
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "copilot",
  model: (name) => name,
  cases: ["read", "edit", "trespass", "ask", "failures", "continue"],
  errors: {
    // copilot retries a 429 five times itself, waiting what the server names: 1 s keeps it short.
    rate_limit: { kind: "rate_limit", retry_after_s: 1 },
    quota: { kind: "quota", retry_after_s: 1 },
  },
  asks: {
    // A command on a path outside the working directory needs an approval nobody can give
    // (Pitroom never passes `--allow-all-paths`): copilot refuses it at once. (A file tool on
    // such a path fails earlier in the sandbox, which hides the folder.)
    turn: (outside) => ({ shell: `touch ${outside}/asked.txt` }),
    message: /no interactive user response/,
  },
});
