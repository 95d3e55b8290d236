/**
 * vcs/: exact change tracking over git, without touching the user's repository state.
 *
 * Data flow: `findRepo` (or `requireRepo`) locates the work tree, its git dir and the user's
 * object store; `repoKey` names Pitroom's own object store for it (the engine keeps it at
 * `<stateDir>/repos/<key>/objects`). `snapshot` copies the user's index into a throwaway one in
 * Pitroom's scratch space, runs `git add -A` and `git write-tree` there and returns a tree id:
 * new objects go to Pitroom's store, the user's objects are borrowed read-only as an alternate,
 * and the user's index, HEAD, refs, stash, config and objects stay as they were. The engine
 * snapshots before a worker, then after it with `base: before` and the same `indexFile` (so a
 * worker's `.gitignore` edit neither exposes ignored files nor hides untracked ones); a read
 * run that left the tree alone has `after.tree === before.tree`. `diffSnapshots` lists the
 * changed files with a diffstat
 * and `patchBetween` gives the binary-safe patch; `revert` undoes exactly those changes after
 * checking that none of the affected files changed since (a read run that changed the tree
 * calls the same `revert`). Directories outside any work tree are not tracked: `findRepo`
 * returns null and `requireRepo` refuses with a hint to run `git init`.
 *
 * Snapshots hold the bytes on disk, not git's filtered form: every call that hashes, checks
 * out or patches work-tree files runs over the overlay of `raw.ts` (no filter, no line-ending
 * rule, no sparse rule). Paths are bytes end to end (`lossless.ts`). Ignored files are watched
 * by stat beside a snapshot (`ignored.ts`); trees with submodules can be refused
 * (`submodules.ts`).
 *
 * The snapshot before a worker takes a quick path in a plain repository (`quick_snapshot.ts`):
 * one `git status`, then only the changed files are hashed and only their folders' trees
 * written (`index_file.ts` reads the user's index and its cache tree, `tree_write.ts` builds the
 * trees, `bare_dirs.ts` finds the empty untracked folders), with the full path as its fallback
 * and as the oracle of its tests.
 *
 * Modules: `git.ts` runs git through the `Runner` with a scrubbed environment; `repo.ts` finds
 * the repository; `store.ts` holds Pitroom's object store and scratch space; `snapshot.ts`,
 * `diff.ts` (+ pure `diff_parse.ts`), `worktree_state.ts` and `revert.ts` do one step each.
 *
 * Every write into the user's tree is a plan (`tree_plan.ts`: each path's entry before and after,
 * made and checked in full first) that `carry_out.ts` carries out file by file, each file
 * atomically (a rename), so a plan cut short is finished by carrying it out again and undone by
 * carrying out its reverse. `revert.ts` and `apply.ts` make such plans; `merge.ts` merges a
 * file three ways where the user changed it too.
 */
export { GitError, type GitSys } from "./git.ts";
export { findRepo, type RepoInfo, repoKey, requireRepo } from "./repo.ts";
export { ensureStore, type StoreOptions } from "./store.ts";
export { type Snapshot, snapshot, type SnapshotOptions } from "./snapshot.ts";
export { SubmodulesRefused } from "./submodules.ts";
export {
  type IgnoredChanges,
  ignoredChanges,
  type IgnoredRecord,
  type IgnoredRestore,
  KEEP_FILE_MAX,
  KEEP_TOTAL_MAX,
  noIgnoredChanges,
  recordIgnored,
  restoreIgnored,
  WATCH_MAX,
} from "./ignored.ts";
export {
  type ChangeSet,
  diffSnapshots,
  type EntryPatch,
  listChanges,
  patchBetween,
  patchOfEntries,
  type RangeOptions,
  type SnapshotRef,
  treeOf,
} from "./diff.ts";
export type { ChangeStatus, FileChange } from "./diff_parse.ts";
export { type PatchUndoOptions, planPatchUndo, undoPatch } from "./patch_undo.ts";
export {
  type BlobFile,
  ChangedSinceError,
  planRevert,
  revert,
  type RevertOptions,
  type RevertPlan,
  type RevertReport,
  undoing,
  writeBlobs,
} from "./revert.ts";
export { carryOut, type CarryReport, PlanBlocked } from "./carry_out.ts";
export {
  joinPlans,
  type PlannedWrite,
  type PlanProgress,
  progressOf,
  reversePlan,
  type TreePlan,
} from "./tree_plan.ts";
export { mergeEntries, type MergeInput, type MergeResult } from "./merge.ts";
export { addedPaths, ignoredPath, treeFolders } from "./folders.ts";
export { indexMoved, markIndex } from "./moved.ts";
export { headCommit } from "./repo.ts";
export {
  type Entry,
  entryOf,
  keepFiles,
  type PathState,
  readBlob,
  readPathStates,
  storeBlob,
  tracksFileMode,
} from "./worktree_state.ts";
export { checkLinks, type CopyOptions, copyRepo, makeCopy } from "./copy.ts";
export {
  applyChanges,
  ApplyConflictError,
  type ApplyOptions,
  type ApplyPlan,
  type ApplyReport,
  DeletesRefused,
  ObjectsGone,
  planApply,
} from "./apply.ts";
export { type GrepCounts, grepCounts, type GrepOptions, workTreeFiles } from "./grep.ts";
export { rangeDiffText, type RangeText, treeDiffText } from "./review_diff.ts";
