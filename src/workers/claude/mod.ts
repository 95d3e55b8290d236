/**
 * The Claude Code backend. Data flow: `launch` describes `claude -p --output-format stream-json
 * --verbose` with the mode's permission profile (argv.ts) and the prompt on stdin; the process
 * shell runs it; every stdout line goes through `parse` (parse.ts) into `worker.*` events; the
 * end and the events go through `classify` (classify.ts); `models` is a maintained table
 * (models.ts). claude writes nothing useful to stderr, so `parseStderr` only keeps lines as
 * `worker.unknown` for the record.
 */
import { event } from "../../events/mod.ts";
import type { Backend, Installed, TestedVersions } from "../types.ts";
import { claudeLaunch } from "./argv.ts";
import { classifyClaude } from "./classify.ts";
import { claudeModels } from "./models.ts";
import { newClaudeState, parseClaudeLine } from "./parse.ts";
import { detectCli } from "../_detect.ts";
import { rawOf } from "../_json.ts";

/**
 * The claude versions this backend was tested with. Both bounds are the pinned version: it is
 * the only one the suites have run on (scripts/install_workers.sh has pinned no other), so no
 * other is claimed. Move a bound only to a version the e2e suite passed on.
 */
const TESTED: TestedVersions = {
  pinned: "2.1.328",
  min: "2.1.328",
  max: "2.1.328",
  relies: "its `-p --output-format stream-json` events, permission modes and tool flags",
};

/** The claude backend. */
export const claudeBackend: Backend = {
  name: "claude",
  tested: TESTED,
  detect: (runner, env): Promise<Installed | null> => detectCli(runner, "claude", { env }),
  launch: claudeLaunch,
  newState: newClaudeState,
  parse: parseClaudeLine,
  parseStderr: (line, _state, at) => [event("worker.unknown", at.time, { raw: rawOf(line) })],
  classify: classifyClaude,
  models: () => Promise.resolve(claudeModels()),
};
