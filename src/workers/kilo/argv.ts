/**
 * The Kilo launch: OpenCode's (`kilo run --format json` with the prompt on stdin, a per-run agent
 * whose permission profile travels in `KILO_CONFIG_CONTENT` and `KILO_PERMISSION`), with Kilo's
 * own quiet settings and folders (workers/opencode/flavour.ts).
 */
import { launchFlavour } from "../opencode/argv.ts";
import { KILO } from "../opencode/flavour.ts";
import type { Launch, RunSpec } from "../types.ts";

/** Describes the launch of one Kilo attempt. */
export function launchKilo(spec: RunSpec): Launch {
  return launchFlavour(spec, KILO);
}
