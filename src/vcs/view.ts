/**
 * Read views: a write-protected checkout of a snapshot with some files left out (secret-looking
 * ones), for read runs. A view is content-addressed by the tree it holds, so every read run of
 * the same state shares one; it is made once (into a temporary folder, then renamed into place)
 * and kept until pruned. A run holds a shared lock on the view while it reads; pruning takes the
 * lock exclusively, so a view in use is never removed.
 */
import { join } from "../sys/path.ts";
import { exists } from "../sys/fs.ts";
import type { Sys } from "../sys/mod.ts";
import { type HeldLock, tryLock } from "../store/locks.ts";
import { git, type GitSys, nulList } from "./git.ts";
import type { RepoInfo } from "./repo.ts";
import type { Snapshot } from "./snapshot.ts";
import { type StoreOptions, trackingEnv, withScratch } from "./store.ts";
import { copyRepo, makeCopy } from "./copy.ts";
import { knownFiles } from "./tree_files.ts";

/** Options of `openView`. */
export interface ViewOptions extends StoreOptions {
  /** Where the views of this repository live. */
  viewsDir: string;
  /** The state to show. */
  snapshot: Snapshot;
  /** Paths (relative to the root) to leave out. */
  drop: readonly string[];
}

/** An open view; `release()` lets it be pruned again. */
export interface ReadView {
  root: string;
  /** The tree the view holds (the snapshot's, minus the dropped paths). */
  tree: string;
  repo: RepoInfo;
  release(): void;
}

const COMPLETE = "pitroom-view";

/** Every file path of `tree`. */
export async function treeFiles(
  sys: GitSys,
  repo: RepoInfo,
  store: StoreOptions,
  tree: string,
): Promise<string[]> {
  const known = knownFiles(tree);
  if (known !== null) return known;
  const out = await git(sys, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", tree], {
    cwd: repo.root,
    env: trackingEnv(repo, store),
  });
  return out.stdout.split("\0").filter((path) => path !== "");
}

/** The tree `tree` without `drop` (written to Pitroom's store). */
export async function treeWithout(
  sys: GitSys,
  repo: RepoInfo,
  store: StoreOptions,
  tree: string,
  drop: readonly string[],
): Promise<string> {
  if (drop.length === 0) return tree;
  return await withScratch(store, async (dir) => {
    const call = {
      cwd: repo.root,
      env: { ...trackingEnv(repo, store), GIT_INDEX_FILE: join(dir, "index") },
    };
    await git(sys, ["read-tree", tree], call);
    await git(sys, ["update-index", "-z", "--force-remove", "--stdin"], {
      ...call,
      stdin: nulList(drop),
    });
    return (await git(sys, ["write-tree"], call)).stdout.trim();
  });
}

async function chmodTree(sys: GitSys, dir: string, mode: "a-w" | "u+w"): Promise<void> {
  const out = await sys.runner.run(["chmod", "-R", mode, dir]);
  if (out.code !== 0) throw new Error(`chmod -R ${mode} "${dir}" failed: ${out.stderr.trim()}`);
}

/** Removes a view folder (write-protected) if it is there. */
export async function removeView(sys: GitSys, root: string): Promise<void> {
  if (!(await exists(root))) return;
  await chmodTree(sys, root, "u+w");
  await Deno.remove(root, { recursive: true });
}

/** Opens the view of `snapshot` without `drop`, making it first when it does not exist. */
export async function openView(
  sys: GitSys & Pick<Sys, "randomHex" | "clock">,
  repo: RepoInfo,
  options: ViewOptions,
): Promise<ReadView> {
  const store: StoreOptions = { objectsDir: options.objectsDir };
  const tree = await treeWithout(sys, repo, store, options.snapshot.tree, options.drop);
  const root = join(options.viewsDir, tree);
  await Deno.mkdir(options.viewsDir, { recursive: true, mode: 0o700 });
  const lock: HeldLock | null = await tryLock(`${root}.lock`, false);
  if (lock === null) throw new Error(`The read view "${root}" is being removed`);
  try {
    // A view appears only complete (renamed into place after its marker), so it is there or not.
    if (!(await exists(join(root, ".git", COMPLETE)))) {
      const temp = join(options.viewsDir, `${tree}.${sys.randomHex(4)}.new`);
      await makeCopy(sys, repo, { ...store, dest: temp, snapshot: { ...options.snapshot, tree } });
      await Deno.writeTextFile(join(temp, ".git", COMPLETE), "");
      await chmodTree(sys, temp, "a-w");
      try {
        await Deno.rename(temp, root);
      } catch (error) {
        // Another run made the same view meanwhile: use theirs.
        await removeView(sys, temp);
        if (!(await exists(join(root, ".git", COMPLETE)))) throw error;
      }
    }
    const now = new Date(sys.clock.now());
    await Deno.utime(`${root}.lock`, now, now);
    return { root, tree, repo: copyRepo(root, repo.objectFormat), release: () => lock.release() };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Removes half-made views (`<tree>.<hex>.new`) older than an hour: their maker crashed. */
async function removeLeftovers(sys: GitSys & Pick<Sys, "clock">, viewsDir: string) {
  for await (const entry of Deno.readDir(viewsDir)) {
    if (!entry.name.endsWith(".new")) continue;
    const path = join(viewsDir, entry.name);
    const made = (await Deno.lstat(path)).mtime?.getTime() ?? 0;
    if (sys.clock.now() - made > 3_600_000) await removeView(sys, path);
  }
}

/** Removes all but the `keep` most recently used views that no run is reading. */
export async function pruneViews(
  sys: GitSys & Pick<Sys, "clock">,
  viewsDir: string,
  keep: number,
): Promise<number> {
  const views: { name: string; used: number }[] = [];
  try {
    for await (const entry of Deno.readDir(viewsDir)) {
      if (!entry.name.endsWith(".lock")) continue;
      const info = await Deno.stat(join(viewsDir, entry.name));
      views.push({ name: entry.name.slice(0, -5), used: info.mtime?.getTime() ?? 0 });
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
  views.sort((a, b) => b.used - a.used);
  await removeLeftovers(sys, viewsDir);
  let removed = 0;
  for (const view of views.slice(keep)) {
    const lockPath = join(viewsDir, `${view.name}.lock`);
    using lock = await tryLock(lockPath);
    if (lock === null) continue;
    await removeView(sys, join(viewsDir, view.name));
    await Deno.remove(lockPath).catch(() => undefined);
    removed++;
  }
  return removed;
}
