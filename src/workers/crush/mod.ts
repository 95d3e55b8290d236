/**
 * The Crush backend (@charmland/crush 0.96.1), written from Crush's source and documentation and
 * never run: its npm package downloads the binary from github.com at install time, which this
 * project's machines cannot reach, and building it needs a newer Go than they have (README,
 * "Workers"). It describes a `crush run` launch with the prompt on stdin and a data folder
 * outside the project (argv.ts), reads the plain answer and the `--verbose` log (parse.ts),
 * classifies the logged error (classify.ts) and lists `crush models` (models.ts).
 */
import type { Runner } from "../../sys/mod.ts";
import type { Backend, Installed, ParseState, TestedVersions } from "../types.ts";
import { detectCli } from "../_detect.ts";
import { launchCrush, QUIET_ENV } from "./argv.ts";
import { classifyCrush } from "./classify.ts";
import { crushModels } from "./models.ts";
import { parseCrushLine, parseCrushStderr } from "./parse.ts";

/** Finds `crush` on the env's PATH and reads its version. */
export function detectCrush(
  runner: Runner,
  env: Record<string, string>,
): Promise<Installed | null> {
  return detectCli(runner, "crush", { env, extraEnv: QUIET_ENV });
}

/**
 * No crush version has run any suite (the binary cannot be fetched here): the declared range is
 * the npm version the backend was written for, so `doctor` says an installed crush is untested
 * unless it is exactly that one, and the README says what is untested.
 */
const TESTED: TestedVersions = {
  pinned: "0.96.1",
  min: "0.96.1",
  max: "0.96.1",
  relies: "`run --quiet --verbose` printing the answer and logging the session id (from source)",
};

/** The crush backend. */
export const crushBackend: Backend = {
  name: "crush",
  tested: TESTED,
  detect: detectCrush,
  launch: launchCrush,
  newState: (): ParseState => ({ steps: 0, scratch: {} }),
  parse: parseCrushLine,
  parseStderr: parseCrushStderr,
  classify: classifyCrush,
  models: crushModels,
};
