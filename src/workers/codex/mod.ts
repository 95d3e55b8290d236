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
import type { Backend, TestedVersions } from "../types.ts";
import { codexLaunch } from "./argv.ts";
import { classifyCodex } from "./classify.ts";
import { codexModels } from "./models.ts";
import { newCodexState, parseCodexLine, parseCodexStderr } from "./parse.ts";
import { detectCli } from "../_detect.ts";

/**
 * The codex versions this backend was tested with. Both bounds are the pinned version: it is
 * the only one the suites have run on (scripts/install_workers.sh has pinned no other), so no
 * other is claimed. Move a bound only to a version the e2e suite passed on.
 */
const TESTED: TestedVersions = {
  pinned: "0.169.0",
  min: "0.169.0",
  max: "0.169.0",
  relies: "its `exec --json` events, `exec resume` and the `config.toml` provider and feature keys",
};

/** The codex backend. */
export const codexBackend: Backend = {
  name: "codex",
  tested: TESTED,
  detect: (runner, env) => detectCli(runner, "codex", { env }),
  launch: codexLaunch,
  newState: newCodexState,
  parse: parseCodexLine,
  parseStderr: parseCodexStderr,
  classify: classifyCodex,
  models: codexModels,
};
