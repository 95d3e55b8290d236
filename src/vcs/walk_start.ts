/**
 * The start of the snapshot's walk, light enough to load first: a seed copy of the user's index
 * and the `git status` over it that the quick path (quick_snapshot.ts) reads. A foreground read
 * run starts it before the rest of the snapshot's code is loaded (engine/run/ahead.ts).
 */
import { git, type GitOutput, type GitSys } from "./git.ts";
import { headCommit, type RepoInfo } from "./repo.ts";
import { type ConversionConfig, conversionConfig } from "./raw.ts";
import { type StoreOptions, trackingEnv } from "./store.ts";

/** A walk under way: the seed it reads and what its `git status` will say. */
export interface WalkStarted {
  seed: string;
  status: Promise<GitOutput>;
}

/** A walk started with what else its snapshot asks git (`startWalk`). */
export interface WalkBegun extends WalkStarted {
  config: Promise<ConversionConfig>;
  head: Promise<string | null>;
}

/** Copies the user's index (keeping its mtime) to `target`; false when there is none. */
export async function seedIndex(userIndex: string, target: string): Promise<boolean> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(userIndex);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  if (!info.isFile || info.size === 0 || info.mtime === null) return false;
  await Deno.copyFile(userIndex, target);
  // An index that looks older makes git distrust (re-read) more entries, never fewer.
  await Deno.utime(target, info.atime ?? info.mtime, info.mtime);
  return true;
}

/** The arguments of the walk's `git status` (benchmarks/phases/ walks the same way). */
export const WALK_STATUS_ARGS: readonly string[] = [
  "status",
  "--porcelain=v2",
  "-z",
  "--branch",
  "--no-ahead-behind",
  "--untracked-files=all",
  "--ignored=matching",
  "--no-renames",
  "--ignore-submodules=none",
];

/**
 * The quick path's `git status` over the seed `seed`: what differs from the index (modified,
 * deleted, untracked and ignored paths), as porcelain v2, NUL-separated, after the branch's
 * header (HEAD's commit: `statusHead`; no counting of commits against an upstream).
 */
export function startStatus(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { seed: string },
): WalkStarted {
  const env = { ...trackingEnv(repo, options), GIT_INDEX_FILE: options.seed };
  const status = git(sys, [...WALK_STATUS_ARGS], { cwd: repo.root, env });
  status.catch(() => undefined);
  return { seed: options.seed, status };
}

/**
 * HEAD's commit as the branch header of `git status --porcelain=v2 -z --branch` says it: null
 * in a repository with no commit yet, undefined when the header is not there.
 */
export function statusHead(stdout: string): string | null | undefined {
  const at = stdout.startsWith("# branch.oid ") ? 0 : stdout.indexOf("\0# branch.oid ") + 1;
  if (at === 0 && !stdout.startsWith("# branch.oid ")) return undefined;
  const end = stdout.indexOf("\0", at);
  const oid = stdout.slice(at + "# branch.oid ".length, end < 0 ? undefined : end);
  if (oid === "(initial)") return null;
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oid) ? oid : undefined;
}

/**
 * `startStatus`, then, once git walks, the settings that say whether the quick path may be
 * taken, beside it; HEAD comes with the walk (its branch header).
 */
export function startWalk(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { seed: string },
): WalkBegun {
  const walk = startStatus(sys, repo, options);
  const config = conversionConfig(sys, repo, options);
  config.catch(() => undefined);
  const head = walk.status.then(
    (out) => statusHead(out.stdout) ?? headCommit(sys, repo),
    () => headCommit(sys, repo),
  );
  head.catch(() => undefined);
  return { ...walk, config, head };
}
