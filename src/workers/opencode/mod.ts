/**
 * The OpenCode backend (opencode 1.18.33): describes an `opencode run --format json` launch with
 * the prompt on stdin and a per-run agent whose permission profile travels in
 * `OPENCODE_CONFIG_CONTENT` (argv.ts), turns its JSON lines and its logged stderr errors into
 * worker events (parse.ts), classifies how it ended (classify.ts), and lists the models it can
 * use with their variants as efforts (models.ts).
 */
import type { Runner } from "../../sys/mod.ts";
import type { Backend, Installed, ParseState, TestedVersions } from "../types.ts";
import { detectCli } from "../_detect.ts";
import { launchOpencode, QUIET_ENV } from "./argv.ts";
import { classifyOpencode } from "./classify.ts";
import { opencodeModels } from "./models.ts";
import { parseOpencodeLine, parseOpencodeStderr } from "./parse.ts";

/** Finds `opencode` on the env's PATH and reads its version. */
export function detectOpencode(
  runner: Runner,
  env: Record<string, string>,
): Promise<Installed | null> {
  return detectCli(runner, "opencode", { env, extraEnv: QUIET_ENV });
}

/**
 * The opencode versions this backend was tested with. Both bounds are the pinned version: it is
 * the only one the suites have run on (scripts/install_workers.sh has pinned no other), so no
 * other is claimed. Move a bound only to a version the e2e suite passed on.
 */
const TESTED: TestedVersions = {
  pinned: "1.18.33",
  min: "1.18.33",
  max: "1.18.33",
  relies:
    "its `run --format json` events and the agents and permissions of `OPENCODE_CONFIG_CONTENT`",
};

/** The opencode backend. */
export const opencodeBackend: Backend = {
  name: "opencode",
  tested: TESTED,
  detect: detectOpencode,
  launch: launchOpencode,
  newState: (): ParseState => ({ steps: 0, scratch: {} }),
  parse: parseOpencodeLine,
  parseStderr: parseOpencodeStderr,
  classify: classifyOpencode,
  models: opencodeModels,
};
