/**
 * The repository a command stands in (the `-d` folder's, else the working directory's): `last`,
 * a unique part of an id and a group name pick among its runs, and the lists show its runs by
 * default. A run of another repository is reached only by its full id, and a command that acts
 * on one names that repository. A run's repository is found the way the run found it (git's
 * top level of its folder, as a real path), so the two always compare equal.
 */
import type { HeldSys } from "../../store/state.ts";
import type { RunRecord } from "../../store/record.ts";
import { UsageError } from "../../sys/errors.ts";
import { statOrNullSync } from "../../sys/fs.ts";
import { resolve } from "../../sys/path.ts";
import { findRepo } from "../../vcs/repo.ts";

/** Where a command stands. */
export interface Scope {
  /** The repository's root (a real path), or the folder itself outside any repository. */
  root: string;
  /** False outside a git repository: its runs are the ones started in that folder or below. */
  repo: boolean;
  /** The folder as given (before symlinks were resolved). */
  dir: string;
}

/** The scope of `dir` (relative to the working directory). */
export async function scopeOf(
  sys: Pick<HeldSys, "runner" | "env" | "cwd">,
  dir: string,
): Promise<Scope> {
  const given = resolve(sys.cwd(), dir);
  const info = statOrNullSync(given);
  if (info === null) throw new UsageError(`Directory "${given}" does not exist`);
  if (!info.isDirectory) throw new UsageError(`"${given}" is not a directory`);
  let repo: Awaited<ReturnType<typeof findRepo>>;
  try {
    repo = await findRepo(sys, given);
  } catch (error) {
    // No git to ask (not installed, not on PATH): no folder is in a repository then.
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    repo = null;
  }
  if (repo !== null) return { root: repo.root, repo: true, dir: given };
  return { root: await Deno.realPath(given), repo: false, dir: given };
}

/** Where a run worked: its repository's root, else its folder. */
export function placeOf(record: Pick<RunRecord, "repoRoot" | "cwd">): string {
  return record.repoRoot ?? record.cwd;
}

function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/**
 * True when the run belongs to the scope: a run that knows its repository by that root; one
 * that does not (started outside git, or ended before its snapshot) by its folder.
 */
export function inScope(scope: Scope, record: Pick<RunRecord, "repoRoot" | "cwd">): boolean {
  if (record.repoRoot !== undefined) return scope.repo && record.repoRoot === scope.root;
  return within(record.cwd, scope.root) || within(record.cwd, scope.dir);
}

/** How a message names the scope: `this repository ("/src/app")` or `this folder (...)`. */
export function scopeName(scope: Scope): string {
  return `${scope.repo ? "this repository" : "this folder"} ("${scope.root}")`;
}
