/**
 * The GitHub Copilot CLI backend (@github/copilot 1.0.102): describes a `copilot --output-format
 * json` launch with the prompt on stdin and the mode's tools as flags (argv.ts), turns its JSON
 * lines into worker events (parse.ts), classifies how it ended (classify.ts) and names its models
 * (models.ts). Pointed at a custom provider (`COPILOT_PROVIDER_BASE_URL`, BYOK) it needs no
 * GitHub login; that is how the suites drive it against the scripted model server.
 */
import type { Runner } from "../../sys/mod.ts";
import type { Backend, Installed, ParseState, TestedVersions } from "../types.ts";
import { detectCli } from "../_detect.ts";
import { launchCopilot, QUIET_ENV } from "./argv.ts";
import { classifyCopilot } from "./classify.ts";
import { copilotModels } from "./models.ts";
import { parseCopilotLine } from "./parse.ts";

/** Finds `copilot` on the env's PATH and reads its version. */
export function detectCopilot(
  runner: Runner,
  env: Record<string, string>,
): Promise<Installed | null> {
  return detectCli(runner, "copilot", { env, extraEnv: QUIET_ENV });
}

/** The copilot versions this backend was tested with: the pinned one only. */
const TESTED: TestedVersions = {
  pinned: "1.0.102",
  min: "1.0.102",
  max: "1.0.102",
  relies: "its `--output-format json` events, `--available-tools`/`--deny-tool` and BYOK variables",
};

/** The copilot backend. */
export const copilotBackend: Backend = {
  name: "copilot",
  tested: TESTED,
  detect: detectCopilot,
  launch: launchCopilot,
  newState: (): ParseState => ({ steps: 0, scratch: {} }),
  parse: parseCopilotLine,
  parseStderr: () => [],
  classify: classifyCopilot,
  models: copilotModels,
};
