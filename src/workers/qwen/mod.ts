/**
 * The Qwen Code backend (qwen 0.24.4): describes a headless `qwen --output-format stream-json`
 * launch with the prompt on stdin, the mode's permissions as flags and a private system settings
 * layer (argv.ts), turns its JSON lines into worker events (parse.ts), classifies how it ended
 * (classify.ts), and lists the models it knows (models.ts).
 */
import type { WorkerEvent } from "../../events/mod.ts";
import type { Runner } from "../../sys/mod.ts";
import type { Backend, Installed, ParseState, TestedVersions } from "../types.ts";
import { detectCli } from "../_detect.ts";
import { launchQwen, QUIET_ENV } from "./argv.ts";
import { classifyQwen } from "./classify.ts";
import { qwenModels } from "./models.ts";
import { parseQwenLine } from "./parse.ts";

/** Finds `qwen` on the env's PATH and reads its version. */
export function detectQwen(runner: Runner, env: Record<string, string>): Promise<Installed | null> {
  return detectCli(runner, "qwen", { env, extraEnv: QUIET_ENV });
}

/**
 * The qwen versions this backend was tested with. Both bounds are the pinned version: it is the
 * only one the suites have run on (scripts/install_workers.sh has pinned no other), so no other
 * is claimed. Move a bound only to a version the e2e suite passed on.
 */
const TESTED: TestedVersions = {
  pinned: "0.24.4",
  min: "0.24.4",
  max: "0.24.4",
  relies:
    "its `--output-format stream-json` events, approval modes, `--allowed-tools`/`--exclude-tools` rules and the system settings layer",
};

/** The qwen backend. */
export const qwenBackend: Backend = {
  name: "qwen",
  tested: TESTED,
  detect: detectQwen,
  launch: (spec) => launchQwen(spec),
  newState: (): ParseState => ({ steps: 0, scratch: {} }),
  parse: parseQwenLine,
  // Qwen's stderr repeats the errors its stream reports; the classifier reads its tail from
  // ProcessEnd.stderr.
  parseStderr: (): WorkerEvent[] => [],
  classify: classifyQwen,
  models: () => Promise.resolve(qwenModels()),
};
