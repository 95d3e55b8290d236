/**
 * Applies the changes between two snapshots (an isolated copy's work) to the user's work tree,
 * checked before anything is written.
 *
 * `planApply` sorts each changed path by what the user's tree holds now:
 * - already as in `after` (applied before, or an apply that was cut short): left alone;
 * - still as in `before`: written from `after`'s blob;
 * - changed since `before`: merged three ways (the user's file, `before`, `after`), so an edit
 *   elsewhere in the file is fine; if any such merge conflicts, nothing is applied.
 * Deletions are refused unless allowed. The plan holds the exact bytes each path gets (a merge's
 * result is written to Pitroom's store first, as is the user's file it merges into), so the
 * engine can journal it, finish it after a crash and take it back exactly. `applyChanges` plans
 * and carries out in one step. The user's index is never read or written.
 */
import { PitroomError, RefusedError } from "../sys/errors.ts";
import { GitError, type GitSys } from "./git.ts";
import { listChanges, type SnapshotRef } from "./diff.ts";
import type { RepoInfo } from "./repo.ts";
import type { StoreOptions } from "./store.ts";
import { hashRaw } from "./raw.ts";
import { carryOut, missingFolders } from "./carry_out.ts";
import { mergeEntries } from "./merge.ts";
import { foldersToPrune } from "./revert.ts";
import type { PlannedWrite, TreePlan } from "./tree_plan.ts";
import {
  changedSince,
  type Entry,
  entryOf,
  GITLINK,
  readPathStates,
  tracksFileMode,
} from "./worktree_state.ts";

/** Options of `applyChanges`. */
export interface ApplyOptions extends StoreOptions {
  /** The state the changes were made on. */
  before: SnapshotRef;
  /** The state with the changes. */
  after: string;
  /** Apply deletions too. */
  allowDelete?: boolean;
  /** The run being applied, named in refusals. */
  runId?: string;
}

/** What an apply did (or will do), paths relative to the repository root. */
export interface ApplyReport {
  /** Written from the patch onto unchanged files. */
  applied: string[];
  /** Merged into files the user changed elsewhere since. */
  merged: string[];
  /** Already as the patch leaves them. */
  already: string[];
  /** Files the patch deletes (among `applied`). */
  deleted: string[];
  /** Submodule changes, left alone. */
  skipped: string[];
}

/** Refusal: files changed under the patch since the run started (exit 1, nothing applied). */
export class ApplyConflictError extends PitroomError {
  readonly paths: string[];

  constructor(paths: string[], runId: string | undefined, detail: string) {
    const shown = paths.slice(0, 10).map((path) => `"${path}"`).join(", ");
    const more = paths.length > 10 ? ` and ${paths.length - 10} more` : "";
    super(
      "apply_conflict",
      1,
      `Cannot apply: ${paths.length} file(s) changed under the patch since the run started: ${shown}${more}${
        detail ? ` (${detail})` : ""
      }. Nothing was applied`,
      {
        hint: `rebase it with a follow-up: \`pitroom run --continue ${
          runId ?? "RUN"
        } "Rebase your change onto the current files"\`, or see \`pitroom show ${
          runId ?? "RUN"
        } --patch\``,
      },
    );
    this.paths = paths;
  }
}

/** Refusal: the patch deletes files and `--allow-delete` was not given (exit 3). */
export class DeletesRefused extends RefusedError {
  readonly paths: string[];

  constructor(paths: string[], runId: string | undefined) {
    super(
      "apply_deletes",
      `The patch deletes ${paths.length} file(s): ${paths.map((p) => `"${p}"`).join(", ")}`,
      { hint: `apply it with \`pitroom apply ${runId ?? "RUN"} --allow-delete\`` },
    );
    this.paths = paths;
  }
}

/** Refusal: objects the run's snapshots need are gone from the user's object store. */
export class ObjectsGone extends RefusedError {
  constructor(head: string | null, runId: string | undefined, cause: GitError) {
    const from = head === null ? "" : ` (commit ${head.slice(0, 12)})`;
    super(
      "objects_gone",
      `Cannot apply${
        runId ? ` run "${runId}"` : ""
      }: the state it started from${from} is gone from your repository (garbage-collected), so its patch cannot be checked against it`,
      { cause },
    );
  }
}

/** True when git failed because an object it needed is missing. */
export function missingObject(error: unknown): error is GitError {
  return error instanceof GitError &&
    /bad object|unable to read|missing (blob|tree|commit)|not a valid object|could not read|bad tree object|invalid object/i
      .test(error.stderr);
}

/** What applying means for the tree now: the plan and how each path is sorted. */
export interface ApplyPlan {
  plan: TreePlan;
  report: ApplyReport;
}

/** Plans applying `before`..`after` to the work tree of `repo`; see the module comment. */
export async function planApply(
  sys: GitSys,
  repo: RepoInfo,
  options: ApplyOptions,
): Promise<ApplyPlan> {
  try {
    return await planChecked(sys, repo, options);
  } catch (error) {
    if (!missingObject(error)) throw error;
    const head = typeof options.before === "string" ? null : options.before.head;
    throw new ObjectsGone(head, options.runId, error);
  }
}

async function planChecked(
  sys: GitSys,
  repo: RepoInfo,
  options: ApplyOptions,
): Promise<ApplyPlan> {
  const report: ApplyReport = { applied: [], merged: [], already: [], deleted: [], skipped: [] };
  const store: StoreOptions = {
    objectsDir: options.objectsDir,
    ...(options.scratchDir ? { scratchDir: options.scratchDir } : {}),
  };
  const empty: TreePlan = { writes: [], prune: [], made: [] };
  const all = await listChanges(sys, repo, {
    ...store,
    before: options.before,
    after: options.after,
  });
  const changes = all.filter((c) => {
    const sub = c.oldMode === GITLINK || c.newMode === GITLINK;
    if (sub) report.skipped.push(c.path);
    return !sub;
  });
  if (changes.length === 0) return { plan: empty, report };
  const deletes = changes.filter((c) => c.newMode === null).map((c) => c.path);
  if (deletes.length > 0 && !options.allowDelete) throw new DeletesRefused(deletes, options.runId);

  const paths = changes.map((c) => c.path);
  const now = await readPathStates(sys, repo, { ...store, paths });
  const fileMode = await tracksFileMode(sys, repo, store);
  const wanted = new Map(changes.map((c) => [c.path, entryOf(c.newMode, c.newBlob)]));
  const original = new Map(changes.map((c) => [c.path, entryOf(c.oldMode, c.oldBlob)]));
  const notYet = new Set(changedSince(wanted, now, { fileMode }));
  const moved = new Set(changedSince(original, now, { fileMode }));
  report.already = paths.filter((p) => !notYet.has(p));
  const clean = paths.filter((p) => notYet.has(p) && !moved.has(p));
  const touched = paths.filter((p) => notYet.has(p) && moved.has(p));
  const writes: PlannedWrite[] = clean.map((path) => ({
    path,
    from: original.get(path) ?? null,
    to: wanted.get(path) ?? null,
  }));
  if (touched.length > 0) {
    // The user's files are kept in Pitroom's store first: the plan can always give them back.
    const files = touched.filter((p) => now.get(p)?.kind === "entry");
    const stored = await hashRaw(sys, repo, {
      ...store,
      paths: files.filter((p) => (now.get(p) as { entry: Entry }).entry.mode !== "120000"),
      write: true,
    });
    const current = (path: string): Entry | null => {
      const state = now.get(path);
      if (state?.kind !== "entry") return null;
      const blob = stored.get(path) ?? state.entry.blob;
      return { mode: state.entry.mode, blob };
    };
    const merges = await mergeEntries(sys, repo, {
      ...store,
      inputs: touched.map((path) => ({
        path,
        base: original.get(path) ?? null,
        ours: current(path),
        theirs: wanted.get(path) ?? null,
      })),
      labels: ["yours", "before the run", "the run"],
    });
    const failed = merges.filter((m) => "conflict" in m);
    if (failed.length > 0) {
      const first = failed[0]!;
      throw new ApplyConflictError(
        failed.map((m) => m.path),
        options.runId,
        "conflict" in first ? `${first.path}: ${first.conflict}` : "",
      );
    }
    for (const merge of merges) {
      if (!("merged" in merge)) continue;
      writes.push({ path: merge.path, from: current(merge.path), to: merge.merged });
    }
  }
  report.applied = clean;
  report.merged = touched;
  report.deleted = clean.filter((p) => wanted.get(p) === null);
  const removed = writes.filter((w) => w.to === null).map((w) => w.path);
  const added = writes.filter((w) => w.from === null).map((w) => w.path);
  return {
    plan: {
      writes,
      prune: await foldersToPrune(sys, repo, { ...store, before: options.after, removed }),
      made: await missingFolders(repo.root, added),
    },
    report,
  };
}

/** Plans and carries out applying `before`..`after` to the work tree of `repo`. */
export async function applyChanges(
  sys: GitSys,
  repo: RepoInfo,
  options: ApplyOptions,
): Promise<ApplyReport> {
  const { plan, report } = await planApply(sys, repo, options);
  await carryOut(sys, repo, { ...options, plan, tag: "apply" });
  return report;
}
