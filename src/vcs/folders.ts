/**
 * The folders of a tree, the files one tree adds to another, and whether git ignores a path: what
 * the engine's watch of a write run's tree needs to know which folders to watch.
 */
import { git, type GitSys, nulList } from "./git.ts";
import { representable } from "./lossless.ts";
import type { RepoInfo } from "./repo.ts";
import { type StoreOptions, trackingEnv } from "./store.ts";

/**
 * Every folder of `treeish` (relative paths, no trailing slash; the root not included); none
 * when it does not exist (HEAD of a repository without commits).
 */
export async function treeFolders(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { treeish: string },
): Promise<string[]> {
  const out = await git(
    sys,
    ["ls-tree", "-r", "-d", "-z", "--name-only", "--full-tree", options.treeish],
    { cwd: repo.root, env: trackingEnv(repo, options), okCodes: [0, 128] },
  );
  return out.code === 0 ? out.stdout.split("\0").filter((dir) => dir !== "") : [];
}

/** The files `to` has and `from` has not (trees or commits; unchanged folders are skipped). */
export async function addedPaths(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { from: string; to: string },
): Promise<string[]> {
  const out = await git(
    sys,
    [
      "diff-tree",
      "-r",
      "--no-renames",
      "--diff-filter=A",
      "--name-only",
      "-z",
      options.from,
      options.to,
    ],
    { cwd: repo.root, env: trackingEnv(repo, options) },
  );
  return out.stdout.split("\0").filter((path) => path !== "");
}

/** True when git ignores `path` (relative to the root; the user's rules, as `git status`). */
export async function ignoredPath(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { path: string },
): Promise<boolean> {
  if (!representable(options.path)) return true;
  const out = await git(sys, ["check-ignore", "-q", "--stdin", "-z"], {
    cwd: repo.root,
    env: trackingEnv(repo, options),
    stdin: nulList([options.path]),
    okCodes: [0, 1],
  });
  return out.code === 0;
}
