/**
 * The shared worker suite (`_suite.ts`) for claude 2.1.328: the model id is the scenario name
 * (claude sends it as given in the Messages request).
 */
import { join } from "node:path";
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "claude",
  model: (name) => name,
  // Each failure class is a real claude run once, in tests/workers/claude/e2e_test.ts (the CLI's
  // output classified), and on its recorded stream (classify_test.ts); what the program does with
  // each class (exit 1, the record, the cooldown) is the same for every backend and runs through
  // the program in workers_opencode_test.ts. The fallback case drives model_not_found here.
  failures: [],
  asks: {
    // claude never lets `acceptEdits` write to a protected path such as `.claude/` without asking;
    // the user's settings ask about every edit and command too.
    turn: () => ({ write: { path: ".claude/settings.json", content: "{}\n" } }),
    async userConfig(env) {
      await Deno.mkdir(env.CLAUDE_CONFIG_DIR!, { recursive: true });
      await Deno.writeTextFile(
        join(env.CLAUDE_CONFIG_DIR!, "settings.json"),
        JSON.stringify({ permissions: { ask: ["Bash", "Edit", "Write"] } }),
      );
    },
    // `--permission-prompts none`: the refusal of a prompt nobody is there to answer.
    message: /nobody can answer a permission prompt/,
  },
});
