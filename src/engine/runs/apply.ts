/**
 * What becomes of an isolate run's work: `apply` writes its patch into the user's tree (checked
 * first, holding the repository's writer lock so no in-place worker runs meanwhile), `discard`
 * removes the private copy and keeps the patch. A run whose supervisor died before collecting
 * is collected from its copy first, so nothing a worker did is lost with the supervisor.
 */
import { statePaths } from "../../store/paths.ts";
import { isFinal, type RunRecord } from "../../store/record.ts";
import { loadRecord, writeRecord } from "../../store/runs.ts";
import { tryLock } from "../../store/locks.ts";
import { writeTextAtomic } from "../../store/atomic.ts";
import { RefusedError } from "../../sys/errors.ts";
import { exists } from "../../sys/fs.ts";
import { join } from "../../sys/path.ts";
import type { Sys } from "../../sys/mod.ts";
import {
  ApplyConflictError,
  type ApplyReport,
  DeletesRefused,
  ObjectsGone,
} from "../../vcs/mod.ts";
import { reconcile } from "../host/liveness.ts";
import { type TrackedTree, trackTree } from "../tree/tree.ts";
import { pausePoint } from "../core/pause.ts";
import { indexRun } from "../../store/history/mod.ts";

/** Refusal: an apply of the run was cut short, so the user's tree holds part of its patch. */
export class ApplyInterrupted extends RefusedError {
  constructor(id: string, action: "revert" | "discard") {
    super(
      "apply_interrupted",
      `Cannot ${action} run "${id}": its apply was cut short, so your tree holds part of its changes`,
      {
        hint: `finish the apply with \`pitroom apply ${id}\`${
          action === "revert" ? ", then revert it" : " (discarding after that keeps the patch)"
        }`,
      },
    );
  }
}

/** A finished isolate run, checked; refuses live runs and runs of other modes. */
async function isolateRun(sys: Sys, id: string): Promise<RunRecord> {
  const paths = statePaths(sys.stateDir);
  const record = await reconcile(sys, await loadRecord(paths, id));
  if (record.mode !== "isolate" || record.isolation === undefined) {
    throw new RefusedError(
      "not_isolated",
      `Run "${id}" is a ${record.mode} run, not an isolate run`,
      record.mode === "write" ? { hint: `undo its edits with \`pitroom revert ${id}\`` } : {},
    );
  }
  if (!isFinal(record.state)) {
    throw new RefusedError("run_live", `Run "${id}" is still ${record.state}`, {
      hint: `wait for it with \`pitroom wait ${id}\``,
    });
  }
  return record;
}

async function userTree(sys: Sys, record: RunRecord): Promise<TrackedTree> {
  const tree = record.repoRoot === undefined
    ? null
    : await trackTree(sys, statePaths(sys.stateDir), record.repoRoot);
  if (tree === null) {
    throw new RefusedError(
      "no_repo",
      `"${record.repoRoot ?? record.cwd}" is no longer a git repository`,
    );
  }
  return tree;
}

/**
 * Makes sure the record holds the copy's final state: a run whose supervisor died before it
 * collected is snapshotted from its copy now (and its patch written).
 */
async function collectLost(sys: Sys, record: RunRecord, tree: TrackedTree): Promise<void> {
  const changes = record.changes;
  const isolation = record.isolation!;
  if (changes === undefined || changes.after !== changes.before.tree) return;
  if (record.state !== "lost" || !(await exists(join(isolation.copyRoot, ".git")))) return;
  const copy = tree.openCopy(isolation.copyRoot);
  const after = (await copy.snapshot({ base: changes.before })).tree;
  if (after === changes.before.tree) return;
  const diff = await copy.diff(changes.before, after);
  const paths = statePaths(sys.stateDir);
  await Deno.writeFile(paths.run(record.id).patch, diff.patch, { mode: 0o600 });
  record.changes = { before: changes.before, after, files: diff.files };
  await writeRecord(paths, record);
}

/** What `applyRun` did. */
export interface Applied {
  record: RunRecord;
  report: ApplyReport;
}

/** Applies a finished isolate run's patch to the user's tree; see the module comment. */
export async function applyRun(
  sys: Sys,
  id: string,
  options: { allowDelete: boolean },
): Promise<Applied> {
  const paths = statePaths(sys.stateDir);
  const record = await isolateRun(sys, id);
  const tree = await userTree(sys, record);
  await collectLost(sys, record, tree);
  const changes = record.changes;
  if (changes === undefined || changes.files.length === 0) {
    throw new RefusedError("nothing_to_apply", `Run "${id}" changed no file`);
  }
  const repoPaths = paths.repo(tree.key);
  using writer = await tryLock(repoPaths.writerLock);
  if (writer === null) {
    const holder = await Deno.readTextFile(repoPaths.writer).catch(() => "");
    throw new RefusedError(
      "repo_busy",
      `A write run${holder ? ` (${holder})` : ""} is working in "${tree.root}"`,
      { hint: `apply once it is done: \`pitroom wait ${holder || "RUN"}\`` },
    );
  }
  await writeTextAtomic(repoPaths.writer, `apply ${id}`);
  // The user's tree before this apply wrote anything: that of an apply cut short, or of the
  // apply this one repeats, else now. Recorded first, so a revert can always undo exactly it.
  const isolation = record.isolation!;
  const earlier = changes.reverted ? undefined : isolation.applied?.before;
  const cutShort = isolation.applying;
  const before = cutShort?.before ?? earlier ?? await tree.snapshot();
  isolation.applying = { at: sys.clock.now(), before };
  await writeRecord(paths, record);
  await pausePoint(sys, "applying");
  let report: ApplyReport;
  try {
    report = await tree.apply(changes.before, changes.after, {
      allowDelete: options.allowDelete,
      runId: id,
    });
  } catch (error) {
    // These refusals come before anything is written: the tree is as it was.
    const before = error instanceof ApplyConflictError || error instanceof DeletesRefused ||
      error instanceof ObjectsGone;
    if (!before) throw error;
    if (cutShort === undefined) delete isolation.applying;
    else isolation.applying = cutShort;
    await writeRecord(paths, record);
    throw error;
  }
  const after = (await tree.snapshot({ base: before })).tree;
  const files = [...report.applied, ...report.merged];
  const kept = isolation.applied !== undefined && !changes.reverted ? isolation.applied.files : [];
  isolation.applied = {
    at: sys.clock.now(),
    files: [...new Set([...kept, ...files])].sort(),
    before,
    after,
  };
  delete isolation.applying;
  // Applied again after a revert: the tree holds the changes again, and revert can undo them.
  delete changes.reverted;
  await writeRecord(paths, record);
  await indexRun(sys, record);
  return { record, report };
}

/** Removes an isolate run's private copy; the patch and the record stay. */
export async function discardRun(sys: Sys, id: string): Promise<RunRecord> {
  const paths = statePaths(sys.stateDir);
  const record = await isolateRun(sys, id);
  const isolation = record.isolation!;
  if (isolation.discarded !== undefined) return record;
  if (isolation.applying !== undefined) throw new ApplyInterrupted(id, "discard");
  const tree = record.repoRoot === undefined
    ? null
    : await trackTree(sys, paths, record.repoRoot).catch(() => null);
  // A lost run's work is collected into its patch before the copy goes.
  if (tree !== null) await collectLost(sys, record, tree);
  await Deno.remove(isolation.copyRoot, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  isolation.discarded = { at: sys.clock.now() };
  await writeRecord(paths, record);
  await indexRun(sys, record);
  return record;
}
