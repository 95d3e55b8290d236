/**
 * The engine's view of the working tree: snapshots before and after a worker, the diff between
 * them, and the exact undo. Backed by vcs/ with Pitroom's own object store per repository.
 */
import type { HeldSys } from "../../store/state.ts";
import type { StatePaths } from "../../store/paths.ts";
import type { ChangedFile, Changes, TreeSnapshot } from "../../store/record.ts";
import type { Clock } from "../../sys/mod.ts";
import type * as vcs from "../../vcs/mod.ts";
import { findRepo, headCommit, repoKey } from "../../vcs/repo.ts";
import { ensureStore } from "../../vcs/store.ts";
import { snapshot } from "../../vcs/snapshot.ts";
import { diffSnapshots, listChanges, patchBetween, patchOfEntries } from "../../vcs/diff.ts";
import {
  entryOf,
  keepFiles,
  readBlob,
  readPathStates,
  storeBlob,
  tracksFileMode,
} from "../../vcs/worktree_state.ts";
import { ignoredChanges, recordIgnored, restoreIgnored } from "../../vcs/ignored.ts";
import { addedPaths, ignoredPath, treeFolders } from "../../vcs/folders.ts";
import { copyRepo } from "../../vcs/copy.ts";
import * as viewMod from "../../vcs/view.ts";
import { dirname, join } from "../../sys/path.ts";
import type { TreeWatch } from "./tree_watch.ts";
import { hiddenFiles } from "./hidden_files.ts";
import type { SecretPatterns } from "../../confine/secrets.ts";

/** How many read views of a repository are kept for reuse. */
const VIEWS_KEPT = 4;

/** A repository as the engine tracks it. */
export interface TrackedTree {
  root: string;
  key: string;
  /**
   * Snapshots the tree; `base` is the snapshot before the worker, when there is one, and
   * `indexFile` a throwaway index in the run folder shared by a run's snapshots. `readHead:
   * false` skips reading HEAD (the result's `head` is the base's) when only the tree is wanted.
   */
  snapshot(
    options?: {
      base?: TreeSnapshot;
      indexFile?: string;
      /** The kept index written when first needed (or left: `droppedIndex`). */
      keepOnDemand?: boolean;
      submodules?: "allow" | "refuse";
      readHead?: boolean;
      /** Called with what git ignores as soon as it is known (`SnapshotOptions.ignoredKnown`). */
      ignoredKnown?: (ignored: readonly string[]) => void;
      /** Called with the paths HEAD may lack, where known (`SnapshotOptions.addedKnown`). */
      addedKnown?: (paths: readonly string[]) => void;
      /** Shared with the read runs of the same tree asked for before it began (`SnapshotOptions.share`). */
      share?: { asked: number; now: () => number };
    },
  ): Promise<TreeSnapshot>;
  /** The changed files with their line counts, the patch, and each path's entry before and after. */
  diff(before: TreeSnapshot, after: string): Promise<TreeDiff>;
  /** One file's patch and line counts from one entry to another (a shared file's segment). */
  patchOf(
    path: string,
    before: vcs.Entry | null,
    after: vcs.Entry | null,
  ): Promise<vcs.EntryPatch>;
  /** The patch of `before`..`after` limited to `paths` (empty when there are none). */
  patch(before: TreeSnapshot, after: string, paths: readonly string[]): Promise<Uint8Array>;
  /** Undoes `before`..`after` (only the paths in `only`, when given). */
  revert(
    before: TreeSnapshot,
    after: string,
    runId: string,
    options?: { only?: ReadonlySet<string> },
  ): Promise<void>;
  /** Makes a private copy at `dest` checked out at `at` (isolate mode) and opens it. */
  copy(dest: string, at: TreeSnapshot, links: readonly string[]): Promise<TrackedTree>;
  /** Opens a copy made earlier (a follow-up reuses its run's copy). */
  openCopy(dest: string): TrackedTree;
  /** Every file path of a snapshot's tree. */
  files(at: TreeSnapshot): Promise<string[]>;
  /**
   * The files of a snapshot's tree that look like secrets or `patterns` hide, kept between runs
   * by the tree's id (hidden_files.ts).
   */
  hiddenFiles(at: TreeSnapshot, patterns: SecretPatterns): Promise<string[]>;
  /**
   * Opens the shared, write-protected read view of `at` without `drop` (made when missing),
   * as a tracked tree with a `release()` to call when the run is done with it.
   */
  view(
    at: TreeSnapshot,
    drop: readonly string[],
  ): Promise<TrackedTree & { release(): void; tree: string }>;
  /**
   * Records the stat of the ignored files `ignored` (a snapshot's; kept, when `keep`, to be
   * undone later) and returns the check to run after the worker. With `share`, runs asked for
   * before a walk began join it (the read runs of a crew: vcs/ignored.ts).
   */
  watchIgnored(
    ignored: readonly string[],
    keep: boolean,
    share?: { asked: number; now(): number },
  ): Promise<IgnoredWatch>;
  /** Applies `before`..`after` (a copy's work) to this tree, checked first. */
  apply(
    before: TreeSnapshot,
    after: string,
    options: { allowDelete: boolean; runId: string },
  ): Promise<vcs.ApplyReport>;
  /** Plans applying `before`..`after` (a copy's work) to this tree, checked first. */
  planApply(
    before: TreeSnapshot,
    after: string,
    options: { allowDelete: boolean; runId: string },
  ): Promise<vcs.ApplyPlan>;
  /** Plans undoing `before`..`after` (only the paths in `only`, when given). */
  planRevert(
    before: TreeSnapshot | string,
    after: string,
    options?: { only?: ReadonlySet<string> },
  ): Promise<vcs.RevertPlan>;
  /**
   * Plans undoing a run's patch (its files from what they hold now), checked first: refused
   * when they changed since or the patch is undone already (vcs/patch_undo.ts).
   */
  planPatchUndo(patch: Uint8Array, options: vcs.PatchUndoOptions): Promise<vcs.TreePlan>;
  /** The writes that turn `before` into `after` (no folders). */
  planBetween(before: TreeSnapshot | string, after: string): Promise<vcs.TreePlan>;
  /** Carries out a plan of writes, each file atomically (see vcs/carry_out.ts). */
  carryOut(
    plan: vcs.TreePlan,
    options: { tag: string; afterEach?: (count: number) => Promise<void> },
  ): Promise<vcs.CarryReport>;
  /** What the paths hold now, and whether the executable bit counts. */
  states(paths: readonly string[]): Promise<{ now: Map<string, vcs.PathState>; fileMode: boolean }>;
  /** Three-way merges (results written to Pitroom's store). */
  merge(
    inputs: readonly vcs.MergeInput[],
    labels: [string, string, string],
  ): Promise<vcs.MergeResult[]>;
  /**
   * Starts watching this tree's folders (those of HEAD) for a write run, its versions in `file`
   * (named later when not yet known: `TreeWatch.attach`); engine/tree/tree_watch.ts.
   */
  startWatch(file: string | undefined, clock: Clock): Promise<TreeWatch>;
  /**
   * Widens a watch to what the snapshot `before` holds beyond HEAD, and leaves out its ignored.
   * `added`: the paths HEAD may lack, when the snapshot said them (else git compares the trees).
   */
  widenWatch(watch: TreeWatch, before: TreeSnapshot, added?: readonly string[]): Promise<void>;
  /**
   * Notes where the index and the stash stand (the index copied to `keep`, no git process);
   * the mark goes into the snapshot before, for `moved`.
   */
  markIndex(keep: string): Promise<string>;
  /** What moved since `before` (HEAD's commit; the index or stash, by the mark and its copy). */
  moved(before: TreeSnapshot, kept: string): Promise<Changes["moved"]>;
  /** The bytes of a blob of Pitroom's store (or the user's). */
  blob(id: string): Promise<Uint8Array>;
  /** Writes the files at `paths` into Pitroom's store; their entries (absent: null). */
  keep(paths: readonly string[]): Promise<Map<string, vcs.Entry | null>>;
}

/** What changed between two snapshots. */
export interface TreeDiff {
  patch: Uint8Array;
  files: ChangedFile[];
  /** Each changed path's entry before and after (null: no file). */
  entries: Map<string, { from: vcs.Entry | null; to: vcs.Entry | null }>;
}

/** The ignored files of a tree as they were before a worker. */
export interface IgnoredWatch {
  /** What changed among them since. */
  changes(): Promise<vcs.IgnoredChanges>;
  /** Undoes `changes` where the files were kept; lists the rest. */
  restore(changes: vcs.IgnoredChanges): Promise<vcs.IgnoredRestore>;
}

/** True when `dir` is inside a git work tree. */
export async function inRepo(sys: Pick<HeldSys, "runner" | "env">, dir: string): Promise<boolean> {
  return (await findRepo(sys, dir)) !== null;
}

/**
 * The repository questions in flight, by folder: the runs of a crew handed to the host together
 * asked git the same question ten times at once, and the git processes held back the first run's
 * snapshot (trackTree took 100-250 ms each instead of 17). A call joins the question under way for
 * its folder (and git variables); none is kept once answered.
 */
const repoQuestions = new Map<string, Promise<vcs.RepoInfo | null>>();

function repoOf(
  sys: Pick<HeldSys, "runner" | "env" | "randomHex" | "clock">,
  dir: string,
): Promise<vcs.RepoInfo | null> {
  // The starter's GIT_* variables (GIT_DIR, say) change the answer: they are part of the question.
  const gitEnv = Object.entries(sys.env.toObject()).filter(([name]) => name.startsWith("GIT_"));
  const key = JSON.stringify([dir, gitEnv.sort()]);
  const asking = repoQuestions.get(key);
  if (asking !== undefined) return asking;
  const answer = findRepo(sys, dir).finally(() => repoQuestions.delete(key));
  repoQuestions.set(key, answer);
  return answer;
}

/** Opens the repository containing `dir`, or null when it is not in one. */
export async function trackTree(
  sys: Pick<HeldSys, "runner" | "env" | "randomHex" | "clock">,
  paths: StatePaths,
  dir: string,
): Promise<TrackedTree | null> {
  const repo = await repoOf(sys, dir);
  if (repo === null) return null;
  return await openTree(sys, paths, repo);
}

/** Opens a repository found already (`vcs.findRepo`) over Pitroom's object store for it. */
export async function openTree(
  sys: Pick<HeldSys, "runner" | "env" | "randomHex" | "clock">,
  paths: StatePaths,
  repo: vcs.RepoInfo,
): Promise<TrackedTree> {
  const key = await repoKey(repo.root);
  return tracked(sys, repo, key, { objectsDir: paths.repo(key).objects });
}

/** A repository (the user's, or a copy of it) over Pitroom's object store for `key`. */
function tracked(
  sys: Pick<HeldSys, "runner" | "env" | "randomHex" | "clock">,
  repo: vcs.RepoInfo,
  key: string,
  store: vcs.StoreOptions,
): TrackedTree {
  return {
    root: repo.root,
    key,
    snapshot: (options = {}) => snapshot(sys, repo, { ...store, ...options }),
    async diff(before, after) {
      const range = { ...store, before, after };
      const set = await diffSnapshots(sys, repo, range);
      const patch = await patchBetween(sys, repo, range);
      const files: ChangedFile[] = set.files.map((f) => ({
        path: f.path,
        status: f.status,
        added: f.added,
        removed: f.removed,
        binary: f.binary,
        ...(f.oldMode !== null && f.newMode !== null && f.oldMode !== f.newMode
          ? { mode: { from: f.oldMode, to: f.newMode } }
          : {}),
      }));
      const entries = new Map(set.files.map((f) => [f.path, {
        from: entryOf(f.oldMode, f.oldBlob),
        to: entryOf(f.newMode, f.newBlob),
      }]));
      return { patch, files, entries };
    },
    patchOf: (path, before, after) => patchOfEntries(sys, repo, { ...store, path, before, after }),
    async patch(before, after, paths) {
      if (paths.length === 0) return new Uint8Array();
      return await patchBetween(sys, repo, { ...store, before, after, paths });
    },
    async revert(before, after, runId, options = {}) {
      await (await import("../../vcs/revert.ts")).revert(sys, repo, {
        ...store,
        before,
        after,
        runId,
        ...options,
      });
    },
    async copy(dest, at, links) {
      const copy = await (await import("../../vcs/copy.ts")).makeCopy(sys, repo, {
        ...store,
        dest,
        snapshot: at,
        links,
      });
      return tracked(sys, copy, key, store);
    },
    files: (at) => viewMod.treeFiles(sys, repo, store, at.tree),
    hiddenFiles: (at, patterns) =>
      hiddenFiles(
        join(dirname(store.objectsDir), "hidden-memo.json"),
        at.tree,
        patterns,
        () => viewMod.treeFiles(sys, repo, store, at.tree),
      ),
    async view(at, drop) {
      const viewsDir = join(dirname(store.objectsDir), "views");
      const view = await viewMod.openView(sys, repo, { ...store, viewsDir, snapshot: at, drop });
      // Keep a few recent views; one in use by another run is never removed.
      await viewMod.pruneViews(sys, viewsDir, VIEWS_KEPT).catch(() => 0);
      return { ...tracked(sys, view.repo, key, store), release: view.release, tree: view.tree };
    },
    openCopy(dest) {
      return tracked(sys, copyRepo(dest, repo.objectFormat), key, store);
    },
    async watchIgnored(ignored, keep, share) {
      const record = await recordIgnored(sys, repo, {
        ...store,
        ignored,
        keep,
        ...(share === undefined ? {} : { share }),
      });
      return {
        changes: () => ignoredChanges(sys, repo, { ...store, record }),
        restore: (changes) =>
          restoreIgnored(changes, {
            root: repo.root,
            record,
            write: async (files) =>
              (await import("../../vcs/revert.ts")).writeBlobs(sys, repo, { ...store, files }),
          }),
      };
    },
    async apply(before, after, options) {
      return await (await import("../../vcs/apply.ts")).applyChanges(sys, repo, {
        ...store,
        before,
        after,
        ...options,
      });
    },
    planApply: async (before, after, options) =>
      (await import("../../vcs/apply.ts")).planApply(sys, repo, {
        ...store,
        before,
        after,
        ...options,
      }),
    planRevert: async (before, after, options = {}) =>
      (await import("../../vcs/revert.ts")).planRevert(sys, repo, {
        ...store,
        before,
        after,
        ...options,
      }),
    planPatchUndo: async (patch, options) =>
      (await import("../../vcs/patch_undo.ts")).planPatchUndo(sys, repo, store, patch, options),
    async planBetween(before, after) {
      const changes = await listChanges(sys, repo, { ...store, before, after });
      return {
        writes: changes.map((c) => ({
          path: c.path,
          from: entryOf(c.oldMode, c.oldBlob),
          to: entryOf(c.newMode, c.newBlob),
        })),
        prune: [],
        made: [],
      };
    },
    carryOut: async (plan, options) =>
      (await import("../../vcs/carry_out.ts")).carryOut(sys, repo, { ...store, ...options, plan }),
    async states(paths) {
      const now = await readPathStates(sys, repo, { ...store, paths: [...paths] });
      return { now, fileMode: await tracksFileMode(sys, repo, store) };
    },
    merge: async (inputs, labels) =>
      (await import("../../vcs/merge.ts")).mergeEntries(sys, repo, { ...store, inputs, labels }),
    async startWatch(file, clock) {
      // Its code loads while git lists the folders.
      const loading = import("./tree_watch.ts");
      loading.catch(() => undefined);
      await ensureStore(store);
      const folders = await treeFolders(sys, repo, { ...store, treeish: "HEAD" });
      const { TreeWatch } = await loading;
      return await TreeWatch.start({
        root: repo.root,
        objectsDir: store.objectsDir,
        ...(file === undefined ? {} : { file }),
        clock,
        folders: ["", ...folders],
        ignoredFolder: (path) => ignoredPath(sys, repo, { ...store, path }),
        storeLarge: (bytes) => storeBlob(sys, repo, { ...store, bytes }),
      });
    },
    async widenWatch(watch, before, known) {
      watch.ignore(before.ignored);
      const head = before.head;
      const added = head === null
        ? await treeFolders(sys, repo, { ...store, treeish: before.tree })
        : (known ??
          await addedPaths(sys, repo, { ...store, from: `${head}^{tree}`, to: before.tree }))
          .flatMap((path) => {
            const cut = path.lastIndexOf("/");
            return cut < 0 ? [] : [path.slice(0, cut)];
          });
      const parents = new Set<string>();
      for (const folder of [...added, ...before.bareDirs]) {
        for (let dir = folder; dir !== ""; dir = dir.includes("/") ? dirname(dir) : "") {
          parents.add(dir);
        }
      }
      watch.add([...parents]);
    },
    markIndex: async (keep) => (await import("../../vcs/moved.ts")).markIndex(repo, keep),
    async moved(before, kept) {
      const [head, index] = await Promise.all([
        headCommit(sys, repo),
        before.index === undefined
          ? false
          : (await import("../../vcs/moved.ts")).indexMoved(repo, { mark: before.index, kept }),
      ]);
      const headMoved = head !== before.head ? { from: before.head, to: head } : undefined;
      if (headMoved === undefined && !index) return undefined;
      return { ...(headMoved ? { head: headMoved } : {}), ...(index ? { index: true } : {}) };
    },
    blob: (id) => readBlob(sys, repo, { ...store, blob: id }),
    keep: (paths) => keepFiles(sys, repo, { ...store, paths }),
  };
}
