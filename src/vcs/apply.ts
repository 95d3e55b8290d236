/**
 * Applies the changes between two snapshots (an isolated copy's work) to the user's work tree,
 * checked before anything is written.
 *
 * Each changed path is sorted by what the user's tree holds now:
 * - already as in `after` (applied before, or an apply that was cut short): left alone;
 * - still as in `before`: written from `after`'s blob (the exact revert machinery, reversed);
 * - changed since `before`: the patch of that file must still apply (`git apply --check`, so
 *   an edit elsewhere in the file is fine); if any does not, nothing is applied.
 * Deletions are refused unless allowed. Because every path is judged on its own, running apply
 * again after a crash finishes the job. The user's index is never read or written.
 */
import { join } from "../sys/path.ts";
import { PitroomError, RefusedError } from "../sys/errors.ts";
import { git, GitError, type GitSys } from "./git.ts";
import { listChanges, patchBetween, type SnapshotRef, treeOf } from "./diff.ts";
import type { RepoInfo } from "./repo.ts";
import { revert } from "./revert.ts";
import { type StoreOptions, withScratch } from "./store.ts";
import { rawCommonDir, rawEnv } from "./raw.ts";
import {
  changedSince,
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

/** What an apply did, paths relative to the repository root. */
export interface ApplyReport {
  /** Written from the patch onto unchanged files. */
  applied: string[];
  /** Patched by `git apply` into files the user changed elsewhere since. */
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

/** Applies `before`..`after` to the work tree of `repo`; see the module comment. */
export async function applyChanges(
  sys: GitSys,
  repo: RepoInfo,
  options: ApplyOptions,
): Promise<ApplyReport> {
  try {
    return await applyChecked(sys, repo, options);
  } catch (error) {
    if (!missingObject(error)) throw error;
    const head = typeof options.before === "string" ? null : options.before.head;
    throw new ObjectsGone(head, options.runId, error);
  }
}

async function applyChecked(
  sys: GitSys,
  repo: RepoInfo,
  options: ApplyOptions,
): Promise<ApplyReport> {
  const report: ApplyReport = { applied: [], merged: [], already: [], deleted: [], skipped: [] };
  const store: StoreOptions = {
    objectsDir: options.objectsDir,
    ...(options.scratchDir ? { scratchDir: options.scratchDir } : {}),
  };
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
  if (changes.length === 0) return report;
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

  await withScratch(store, async (dir) => {
    const patchFile = join(dir, "touched.diff");
    // Byte for byte, as the patch was made: no filter or line-ending rule on either side.
    const call = {
      cwd: repo.root,
      env: rawEnv(repo, store, await rawCommonDir(repo, dir)),
      okCodes: [0, 1, 128],
    };
    const applyArgs = ["apply", "--whitespace=nowarn", patchFile];
    if (touched.length > 0) {
      const patch = await patchBetween(sys, repo, {
        ...store,
        before: options.before,
        after: options.after,
        paths: touched,
      });
      await Deno.writeFile(patchFile, patch);
      const check = await git(sys, ["apply", "--check", ...applyArgs.slice(1)], call);
      if (check.code !== 0) {
        const said = check.stderr.trim().split("\n")[0]?.replace(/^error: /, "") ?? "";
        throw new ApplyConflictError(touched, options.runId, said);
      }
    }
    // Everything is checked: now write. Unchanged files first, from the exact blobs.
    if (clean.length > 0) {
      await revert(sys, repo, {
        ...store,
        before: options.after,
        after: treeOf(options.before),
        only: new Set(clean),
        ...(options.runId ? { runId: options.runId } : {}),
      });
      report.applied = clean;
      report.deleted = clean.filter((p) => wanted.get(p) === null);
    }
    if (touched.length > 0) {
      await git(sys, applyArgs, { ...call, okCodes: [0] });
      report.merged = touched;
    }
  });
  return report;
}
