/**
 * The shared worker suite (`_suite.ts`) for Qwen Code 0.24.4: the model id is the scenario name
 * (qwen sends it as the Chat Completions `model`), the provider the OpenAI-compatible auth the
 * scripted model server's worker home configures in `~/.qwen/settings.json`.
 */
import { join } from "node:path";
import { QUOTA_RESET } from "../workers/_fixtures/scenarios.ts";
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "qwen",
  model: (name) => name,
  errors: {
    // qwen tries a 429 seven times, backing off from 1.5 s up to 30 s (about 80 s in all) unless
    // the server names a wait: a 1 s `retry-after` keeps the case short and the class the same.
    rate_limit: { kind: "rate_limit", retry_after_s: 1 },
    // A quota that says when it resets fails at once ("Quota exhausted: ..."); the plain quota
    // wording is retried like a 429 (tests/workers/qwen/testdata/error_quota).
    quota: { kind: "quota", message: QUOTA_RESET },
  },
  // A qwen start costs 2-3 s of CPU: model_not_found is driven once, by the fallback case.
  failures: ["rate_limit", "quota", "auth"],
  asks: {
    // The user's settings ask before every shell command, which wins over Pitroom's
    // `--allowed-tools run_shell_command`: headless, qwen declines it at once.
    turn: () => ({ shell: "ln -s src/app.ts asked.ts" }),
    async userConfig(env) {
      const file = join(env.HOME!, ".qwen", "settings.json");
      const settings = JSON.parse(await Deno.readTextFile(file));
      const ask = ["run_shell_command", "edit", "write_file"];
      await Deno.writeTextFile(file, JSON.stringify({ ...settings, permissions: { ask } }));
    },
    message: /non-interactive mode cannot prompt for confirmation/,
  },
});
