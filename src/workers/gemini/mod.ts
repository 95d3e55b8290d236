/**
 * The Gemini CLI backend (gemini 0.61.0): describes a headless `gemini --output-format
 * stream-json` launch with the prompt on stdin and a generated policy file for the mode
 * (argv.ts; an effort adds a private gemini home with a thinking-level model alias, effort.ts),
 * turns its JSON lines into worker events (parse.ts), classifies how it ended from its
 * exit code and error text (classify.ts), and lists the Gemini models it offers (models.ts).
 */
import type { WorkerEvent } from "../../events/mod.ts";
import type { Backend, Installed, ParseState, TestedVersions } from "../types.ts";
import type { Runner } from "../../sys/mod.ts";
import { geminiLaunch } from "./argv.ts";
import { classifyGemini } from "./classify.ts";
import { geminiModels } from "./models.ts";
import { parseGeminiLine } from "./parse.ts";
import { detectCli } from "../_detect.ts";

/** Finds `gemini` on the env's PATH and reads its version. */
export function detectGemini(
  runner: Runner,
  env: Record<string, string>,
): Promise<Installed | null> {
  return detectCli(runner, "gemini", { env, extraEnv: { GEMINI_CLI_NO_RELAUNCH: "true" } });
}

/**
 * The gemini versions this backend was tested with. Both bounds are the pinned version: it is
 * the only one the suites have run on (scripts/install_workers.sh has pinned no other), so no
 * other is claimed. Move a bound only to a version the e2e suite passed on.
 */
const TESTED: TestedVersions = {
  pinned: "0.61.0",
  min: "0.61.0",
  max: "0.61.0",
  relies:
    "its `--output-format stream-json` events, `settings.json` auth, approval modes and policy files",
};

/** The gemini backend. */
export const geminiBackend: Backend = {
  name: "gemini",
  tested: TESTED,
  detect: detectGemini,
  launch: geminiLaunch,
  newState: (): ParseState => ({ steps: 0, scratch: {} }),
  parse: parseGeminiLine,
  // Gemini's stderr holds stack traces and "Error executing tool" lines that repeat what the
  // stream already says; the classifier reads its tail from ProcessEnd.stderr.
  parseStderr: (): WorkerEvent[] => [],
  classify: classifyGemini,
  models: () => Promise.resolve(geminiModels()),
};
