/**
 * Keeps Pitroom's git guard (vcs/guard.ts) in the state dir, pointing at the user's real git,
 * and hands its folder to every launch as the head of the worker's PATH.
 */
import { statePaths } from "../store/paths.ts";
import type { Sys } from "../sys/mod.ts";
import { writeGitGuard } from "../vcs/mod.ts";
import { DENIED_GIT_SUBCOMMANDS } from "../workers/_floor.ts";
import { findOnPath } from "../workers/_detect.ts";

/** The guard's folder, written or refreshed; null when there is no git to guard. */
export async function ensureGuard(sys: Sys, env: Record<string, string>): Promise<string | null> {
  const dir = statePaths(sys.stateDir).guard;
  const path = (env.PATH ?? "").split(":").filter((p) => p !== "" && p !== dir).join(":");
  const realGit = findOnPath("git", { PATH: path });
  if (realGit === null) return null;
  await writeGitGuard(dir, { realGit, denied: DENIED_GIT_SUBCOMMANDS });
  return dir;
}
