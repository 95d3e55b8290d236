/**
 * Undoes exactly the changes between two snapshots in the work tree, and nothing else.
 *
 * `planRevert` reads what every affected path holds now and sorts it: still as in `after` (to
 * undo), already back as in `before` (a revert cut short did it), or neither (changed since: the
 * caller merges or refuses). The plan writes `before`'s entries over `after`'s, removes the files
 * `after` added and prunes the folders that leaves empty unless they existed before (in
 * `before`'s tree or as its bare folders). `revert` carries such a plan out when nothing changed
 * since, and refuses (`ChangedSinceError`) before writing anything otherwise; each file is written
 * atomically, byte for byte (`carry_out.ts`). The user's index is never read or written.
 */
import { RefusedError } from "../sys/errors.ts";
import { git, type GitSys } from "./git.ts";
import { listChanges, type RangeOptions, treeOf } from "./diff.ts";
import type { RawChange } from "./diff_parse.ts";
import type { RepoInfo } from "./repo.ts";
import { type StoreOptions, trackingEnv } from "./store.ts";
import { carryOut, missingFolders } from "./carry_out.ts";
import { parentsDeepestFirst, type PlannedWrite, progressOf, type TreePlan } from "./tree_plan.ts";
import { entryOf, GITLINK, readPathStates, tracksFileMode } from "./worktree_state.ts";

export { parentsDeepestFirst } from "./tree_plan.ts";

/** Options of `revert`. */
export interface RevertOptions extends RangeOptions {
  /** The run whose changes are undone, named in the refusal's hint. */
  runId?: string;
  /** Undo only these paths (relative to the root); the default is every changed path. */
  only?: ReadonlySet<string>;
}

/** What a revert did, paths relative to the repository root. */
export interface RevertReport {
  /** Files `after` added, now removed. */
  removed: string[];
  /** Files `after` modified or deleted, now as in `before`. */
  restored: string[];
  /** Directories left empty by removed files that did not exist before. */
  removedDirs: string[];
  /** Submodule (gitlink) changes, which revert does not touch. */
  skipped: string[];
}

/** Refusal: some files changed since the snapshot that is being undone. */
export class ChangedSinceError extends RefusedError {
  /** The paths that differ from the `after` snapshot. */
  readonly paths: string[];

  constructor(paths: string[], runId: string | undefined) {
    const shown = paths.slice(0, 10).map((path) => `"${path}"`).join(", ");
    const more = paths.length > 10 ? ` and ${paths.length - 10} more` : "";
    super(
      "changed_since",
      `Cannot revert: ${paths.length} file(s) changed since the run: ${shown}${more}`,
      { hint: `inspect the run's changes with \`pitroom show ${runId ?? "RUN"} --patch\`` },
    );
    this.paths = paths;
  }
}

/** Every directory of `tree` (relative paths, no trailing slash). */
async function treeDirs(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions,
  tree: string,
): Promise<Set<string>> {
  const out = await git(sys, ["ls-tree", "-r", "-d", "-z", "--name-only", "--full-tree", tree], {
    cwd: repo.root,
    env: trackingEnv(repo, options),
  });
  return new Set(out.stdout.split("\0").filter((dir) => dir !== ""));
}

/** What undoing `before`..`after` means for the tree now. */
export interface RevertPlan {
  /** Writes `after` -> `before` of every path not changed since (those done already included). */
  plan: TreePlan;
  /** Paths already as in `before`. */
  done: string[];
  /** Paths that hold neither side: changed since `after`. */
  changed: RawChange[];
  /** Submodule (gitlink) changes, left alone. */
  skipped: string[];
}

/** The write that undoes one change. */
export function undoing(change: RawChange): PlannedWrite {
  return {
    path: change.path,
    from: entryOf(change.newMode, change.newBlob),
    to: entryOf(change.oldMode, change.oldBlob),
  };
}

/**
 * The folders to prune once `removed` files are gone: their parents that were not folders of
 * `before` (its tree or its bare folders).
 */
export async function foldersToPrune(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { before: RangeOptions["before"]; removed: readonly string[] },
): Promise<string[]> {
  if (options.removed.length === 0) return [];
  const keep = await treeDirs(sys, repo, options, treeOf(options.before));
  const bare = typeof options.before === "string" ? [] : options.before.bareDirs;
  const existed = (dir: string) =>
    keep.has(dir) || bare.some((kept) => dir === kept || dir.startsWith(`${kept}/`));
  return parentsDeepestFirst(options.removed).filter((dir) => !existed(dir));
}

/** Plans the undo of `before`..`after` (only the paths in `only`, when given); see the module. */
export async function planRevert(
  sys: GitSys,
  repo: RepoInfo,
  options: RevertOptions,
): Promise<RevertPlan> {
  const skipped: string[] = [];
  const changes: RawChange[] = [];
  for (const change of await listChanges(sys, repo, options)) {
    if (options.only !== undefined && !options.only.has(change.path)) continue;
    if (change.oldMode === GITLINK || change.newMode === GITLINK) skipped.push(change.path);
    else changes.push(change);
  }
  const empty = { writes: [], prune: [], made: [] };
  if (changes.length === 0) return { plan: empty, done: [], changed: [], skipped };
  const writes = changes.map(undoing);
  const now = await readPathStates(sys, repo, { ...options, paths: writes.map((w) => w.path) });
  const fileMode = await tracksFileMode(sys, repo, options);
  const progress = progressOf({ ...empty, writes }, now, { fileMode });
  const neither = new Set(progress.neither.map((w) => w.path));
  const kept = writes.filter((w) => !neither.has(w.path));
  const removed = kept.filter((w) => w.to === null).map((w) => w.path);
  const restored = kept.filter((w) => w.from === null).map((w) => w.path);
  return {
    plan: {
      writes: kept,
      prune: await foldersToPrune(sys, repo, { ...options, removed }),
      made: await missingFolders(repo.root, restored),
    },
    done: progress.done.map((w) => w.path),
    changed: changes.filter((c) => neither.has(c.path)),
    skipped,
  };
}

/**
 * Undoes the changes from `before` to `after` in the work tree of `repo`, after checking that
 * every affected path is still exactly as in `after` (or already as in `before`); refuses with
 * `ChangedSinceError` if not.
 */
export async function revert(
  sys: GitSys,
  repo: RepoInfo,
  options: RevertOptions & { tag?: string },
): Promise<RevertReport> {
  const { plan, changed, skipped } = await planRevert(sys, repo, options);
  if (changed.length > 0) throw new ChangedSinceError(changed.map((c) => c.path), options.runId);
  const carried = await carryOut(sys, repo, {
    plan,
    ...options,
    tag: options.tag ?? "revert",
  });
  const written = new Set(carried.written);
  const now = plan.writes.filter((w) => written.has(w.path));
  return {
    removed: now.filter((w) => w.to === null).map((w) => w.path),
    restored: now.filter((w) => w.to !== null).map((w) => w.path),
    removedDirs: carried.pruned,
    skipped,
  };
}

/** A blob to write at a path of the work tree, as a file of git mode `mode`. */
export interface BlobFile {
  path: string;
  blob: string;
  mode: string;
}

/**
 * Writes blobs of Pitroom's store (or the user's) into the work tree byte for byte, each file
 * atomically, keeping an existing file's permission bits, whatever the paths hold now.
 */
export async function writeBlobs(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { files: readonly BlobFile[] },
): Promise<void> {
  if (options.files.length === 0) return;
  const paths = options.files.map((file) => file.path);
  const now = await readPathStates(sys, repo, { ...options, paths });
  const writes: PlannedWrite[] = options.files.map((file) => {
    const state = now.get(file.path);
    return {
      path: file.path,
      from: state?.kind === "entry" ? state.entry : null,
      to: { mode: file.mode, blob: file.blob },
    };
  });
  const plan = { writes, prune: [], made: [] };
  await carryOut(sys, repo, { ...options, plan, tag: "restore" });
}
