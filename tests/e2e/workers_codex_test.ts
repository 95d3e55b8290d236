/**
 * The shared worker suite (`_suite.ts`) for codex 0.169.0: model ids are `fake/NAME` (the worker
 * home's model catalogue declares the slug `fake`, so codex offers its full tool set).
 */
import { join } from "node:path";
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "codex",
  model: (name) => `fake/${name}`,
  // Each failure class is a real codex run once, in tests/workers/codex/e2e_test.ts (the CLI's
  // output classified), and on its recorded stream (classify_test.ts); what the program does with
  // each class (exit 1, the record, the cooldown) is the same for every backend and runs through
  // the program in workers_opencode_test.ts. The fallback case drives model_not_found here.
  failures: [],
  // In the read-only sandbox a shell write fails with "Read-only file system" and the model gets
  // that as the tool's output, but codex 0.169.0 mostly emits no `command_execution` item and no
  // stderr line for it (an item shows up now and then, by a race inside codex): nothing a parser
  // can count on. The sandbox still keeps the tree unchanged, which the case checks.
  silentDenials: ["shell"],
  asks: {
    // A command asking to leave the sandbox needs an approval. The user's config asks about
    // every untrusted command, a value codex 0.169.0 retired and refuses at start unless the
    // launch sets its own `approval_policy`.
    turn: (outside) => ({
      tool: {
        name: "exec_command",
        input: {
          cmd: `touch ${join(outside, "asked.txt")}`,
          sandbox_permissions: "require_escalated",
          justification: "The file lives outside the workspace.",
        },
      },
    }),
    async userConfig(env) {
      const file = join(env.CODEX_HOME!, "config.toml");
      await Deno.writeTextFile(
        file,
        `approval_policy = "untrusted"\n${await Deno.readTextFile(file)}`,
      );
    },
  },
});
