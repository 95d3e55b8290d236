/**
 * Snapshots the whole work tree (tracked, modified and untracked-but-not-ignored files) into a
 * tree object, without touching the user's index, HEAD, refs, stash, config or object store.
 *
 * A throwaway index in Pitroom's scratch space is seeded with a copy of the user's index (same
 * modification time, so git's racy-entry check stays sound and unchanged files are not re-read),
 * `git add -A` brings it up to the work tree, `git write-tree` turns it into a tree. New blobs
 * and trees go to Pitroom's object store; the user's objects are only read, as an alternate.
 */
import { join } from "node:path";
import { git, type GitSys } from "./git.ts";
import type { RepoInfo } from "./repo.ts";
import { ensureStore, type StoreOptions, trackingEnv, withScratch } from "./store.ts";

/** The state of a work tree at one moment. Plain data: it can be kept in a run record. */
export interface Snapshot {
  /** The tree object (in Pitroom's store, or the user's) holding every file. */
  tree: string;
  /** The user's HEAD commit then, or null in a repository with no commits. */
  head: string | null;
  /**
   * Untracked directories that held no snapshot file (empty, or only ignored files), relative
   * to the root without a trailing slash. Revert keeps these when it prunes directories.
   */
  bareDirs: string[];
}

/** Options of `snapshot`. */
export interface SnapshotOptions extends StoreOptions {
  /**
   * List the untracked directories with no file in them (one more walk of the tree). The
   * snapshot taken after a worker does not need them.
   * @default true
   */
  bareDirs?: boolean;
}

/** Copies the user's index (keeping its mtime) to `target`; false when there is none. */
async function seedIndex(userIndex: string, target: string): Promise<boolean> {
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

/** Parses `git ls-files -o --directory -z` down to its directory entries. */
export function parseBareDirs(stdout: string): string[] {
  return stdout.split("\0").filter((entry) => entry.endsWith("/")).map((entry) =>
    entry.slice(0, -1)
  );
}

/** The user's HEAD commit, or null when the repository has none yet. */
export async function headCommit(sys: GitSys, repo: RepoInfo): Promise<string | null> {
  const out = await git(sys, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], {
    cwd: repo.root,
    env: { GIT_DIR: repo.gitDir, GIT_WORK_TREE: repo.root },
    okCodes: [0, 1],
  });
  return out.code === 0 ? out.stdout.trim() : null;
}

/** Records the whole work tree of `repo` as a tree object in Pitroom's store. */
export async function snapshot(
  sys: GitSys,
  repo: RepoInfo,
  options: SnapshotOptions,
): Promise<Snapshot> {
  await ensureStore(options);
  const head = await headCommit(sys, repo);
  return await withScratch(options, async (dir) => {
    const index = join(dir, "index");
    const env = { ...trackingEnv(repo, options), GIT_INDEX_FILE: index };
    const call = { cwd: repo.root, env };
    if (await seedIndex(repo.indexFile, index)) {
      const seeded = await git(sys, ["add", "-A"], { ...call, okCodes: [0, 128] });
      // An index git cannot take over here (a split index, say) only costs speed: start empty.
      if (seeded.code !== 0) {
        await Deno.remove(index);
        await git(sys, ["add", "-A"], call);
      }
    } else {
      await git(sys, ["add", "-A"], call);
    }
    const tree = (await git(sys, ["write-tree"], call)).stdout.trim();
    const bareDirs = options.bareDirs === false ? [] : parseBareDirs(
      (await git(sys, ["ls-files", "-z", "--others", "--directory", "--exclude-standard"], call))
        .stdout,
    );
    return { tree, head, bareDirs };
  });
}
