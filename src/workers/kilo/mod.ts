/**
 * The Kilo CLI backend (@kilocode/cli 7.7.7). Kilo CLI 7.x is derived from OpenCode: its `run
 * --format json` stream, its config (agents, permission blocks, providers) and its errors are
 * OpenCode's, under `KILO_*` variables and `kilo/` folders. So this backend is the OpenCode one
 * with the Kilo flavour (workers/opencode/flavour.ts): one parser, one classifier, one argv.
 */
import type { Runner } from "../../sys/mod.ts";
import type { Backend, Installed, ParseState, TestedVersions } from "../types.ts";
import { detectCli } from "../_detect.ts";
import { KILO } from "../opencode/flavour.ts";
import { launchKilo } from "./argv.ts";
import { classifyKilo } from "./classify.ts";
import { kiloModels } from "./models.ts";
import { parseKiloLine, parseKiloStderr } from "./parse.ts";

/** Finds `kilo` on the env's PATH and reads its version. */
export function detectKilo(runner: Runner, env: Record<string, string>): Promise<Installed | null> {
  return detectCli(runner, "kilo", { env, extraEnv: KILO.quietEnv });
}

/**
 * The kilo versions this backend was tested with: the pinned one only. 7.8.1, the newest, could
 * not be installed here (the registry lacks its linux-x64 package), so it is not claimed.
 */
const TESTED: TestedVersions = {
  pinned: "7.7.7",
  min: "7.7.7",
  max: "7.7.7",
  relies: "its OpenCode-derived `run --format json` events and `KILO_CONFIG_CONTENT` agents",
};

/** The kilo backend. */
export const kiloBackend: Backend = {
  name: "kilo",
  tested: TESTED,
  detect: detectKilo,
  launch: launchKilo,
  newState: (): ParseState => ({ steps: 0, scratch: {} }),
  parse: parseKiloLine,
  parseStderr: parseKiloStderr,
  classify: classifyKilo,
  models: kiloModels,
};
