/**
 * The codex backend (`@openai/codex`, checked with 0.169.0): `codex exec --json` with the prompt
 * on stdin, a sandbox per mode (read-only / workspace-write, never danger-full-access), per-run
 * settings as `-c` overrides (the user's CODEX_HOME and login are used untouched), a pure parser
 * of its JSONL stream plus the stderr lines where it reports refusals, and a classifier of its
 * failure messages.
 *
 * Data flow: `launch(spec)` (argv.ts) -> the engine's process shell -> `parse` / `parseStderr`
 * (parse.ts) per line -> `classify` (classify.ts) at the end. Token usage is cumulative over a
 * thread: for a follow-up the engine seeds `state.scratch.priorUsage` with the thread's totals
 * from the previous attempt (read them from `state.scratch.usageTotals` after each attempt).
 */
import type { Backend } from "../types.ts";
import { codexLaunch } from "./argv.ts";
import { classifyCodex } from "./classify.ts";
import { codexModels } from "./models.ts";
import { newCodexState, parseCodexLine, parseCodexStderr } from "./parse.ts";
import { detectCli } from "../_detect.ts";

/** The codex backend. */
export const codexBackend: Backend = {
  name: "codex",
  detect: (runner, env) => detectCli(runner, "codex", { env }),
  launch: codexLaunch,
  newState: newCodexState,
  parse: parseCodexLine,
  parseStderr: parseCodexStderr,
  classify: classifyCodex,
  models: codexModels,
};
