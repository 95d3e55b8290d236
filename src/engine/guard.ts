/**
 * Keeps Pitroom's guard (vcs/guard.ts) in the state dir, built from the floor's one list
 * (workers/_floor.ts): the git shim, the floor's program shims and the git hooks.
 */
import { statePaths } from "../store/paths.ts";
import type { Sys } from "../sys/mod.ts";
import { type GuardPaths, writeGuard } from "../vcs/mod.ts";
import {
  DENIED_GIT_SUBCOMMANDS,
  DENIED_PROGRAMS,
  GIT_FORMS,
  PUBLISHING,
  RECURSION_PROGRAM,
} from "../workers/_floor.ts";

/** The guard's folders, written or repaired. */
export function ensureGuard(sys: Sys): Promise<GuardPaths> {
  return writeGuard(statePaths(sys.stateDir).guard, {
    gitRefused: DENIED_GIT_SUBCOMMANDS,
    gitForms: Object.keys(GIT_FORMS),
    refused: [
      ...DENIED_PROGRAMS.map((program) => ({ program, why: "it runs commands as another user" })),
      { program: RECURSION_PROGRAM, why: "a worker may not start Pitroom", exitCode: 3 },
    ],
    guarded: PUBLISHING.map((rule) => ({
      ...rule,
      why: "it publishes, or changes what a registry or code host serves",
    })),
  });
}
