/**
 * The OpenCode backend (opencode 1.18.33): describes an `opencode run --format json` launch with
 * the prompt on stdin and a per-run agent whose permission profile travels in
 * `OPENCODE_CONFIG_CONTENT` (argv.ts), turns its JSON lines and its logged stderr errors into
 * worker events (parse.ts), classifies how it ended (classify.ts), and lists the models it can
 * use with their variants as efforts (models.ts).
 */
import type { Runner } from "../../sys/mod.ts";
import type { Backend, Installed, ParseState } from "../types.ts";
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

/** The opencode backend. */
export const opencodeBackend: Backend = {
  name: "opencode",
  detect: detectOpencode,
  launch: launchOpencode,
  newState: (): ParseState => ({ steps: 0, scratch: {} }),
  parse: parseOpencodeLine,
  parseStderr: parseOpencodeStderr,
  classify: classifyOpencode,
  models: opencodeModels,
};
