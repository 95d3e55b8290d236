/**
 * What becomes of an isolate run's work: `apply` writes its patch into the user's tree (checked
 * first, holding the repository's writer lock so no in-place worker runs meanwhile) as one
 * journaled operation (engine/tree/journaled.ts), `discard` removes the private copy and keeps the
 * patch. An apply cut short is finished by the next `apply` (or taken back by `revert`). A run
 * whose supervisor died before collecting is collected from its copy first, so nothing a worker
 * did is lost with the supervisor.
 */
import type { HeldSys } from "../../store/state.ts";
import { isFinal, type RunRecord } from "../../store/record.ts";
import { tryLock } from "../../store/locks.ts";
import { writeTextAtomic } from "../../sys/atomic.ts";
import { writePatch } from "../../store/patch_file.ts";
import { type JournalOp, liveOps, readJournal } from "../../store/journal.ts";
import { RefusedError } from "../../sys/errors.ts";
import { exists, removeIfThere } from "../../sys/fs.ts";
import { join } from "../../sys/path.ts";
import type { ApplyReport, CarryReport } from "../../vcs/mod.ts";
import { reconcile } from "../host/liveness.ts";
import { type TrackedTree, trackTree } from "../tree/tree.ts";
import { pausePoint } from "../core/pause.ts";
import { indexRun } from "../../store/history/mod.ts";
import { carryNew, cutShort, finishOp, lastOp, opsOf, type RunTree } from "../tree/journaled.ts";
import { MODES } from "../../workers/modes.ts";
import { saveChanged } from "./changed.ts";

/** A finished isolate run, checked; refuses live runs and runs of other modes. */
async function isolateRun(sys: HeldSys, id: string): Promise<RunRecord> {
  const record = await reconcile(sys, await sys.state.runs.load(id));
  if (!MODES[record.mode].usesCopy || record.isolation === undefined) {
    throw new RefusedError(
      "not_isolated",
      `Run "${id}" is a ${record.mode} run, not an isolate run`,
      MODES[record.mode].editsInPlace
        ? { hint: `undo its edits with \`pitroom revert ${id}\`` }
        : {},
    );
  }
  if (!isFinal(record.state)) {
    throw new RefusedError("run_live", `Run "${id}" is still ${record.state}`, {
      hint: `wait for it with \`pitroom wait ${id}\``,
    });
  }
  return record;
}

async function userTree(sys: HeldSys, record: RunRecord): Promise<TrackedTree> {
  const tree = record.repoRoot === undefined
    ? null
    : await trackTree(sys, sys.state.paths, record.repoRoot);
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
 * collected is snapshotted from its copy now (and its patch written), for an apply or a discard.
 */
async function collectLost({ sys, record, tree }: RunTree, by: "apply" | "discard"): Promise<void> {
  const changes = record.changes;
  const isolation = record.isolation!;
  if (changes === undefined || changes.after !== changes.before.tree) return;
  if (record.state !== "lost" || !(await exists(join(isolation.copyRoot, ".git")))) return;
  const copy = tree.openCopy(isolation.copyRoot);
  const after = (await copy.snapshot({ base: changes.before })).tree;
  if (after === changes.before.tree) return;
  const diff = await copy.diff(changes.before, after);
  const paths = sys.state.paths;
  const patchDigest = await writePatch(paths.run(record.id).patch, diff.patch);
  record.changes = { before: changes.before, after, files: diff.files, patchDigest };
  await saveChanged(sys, record, by);
}

/** What `applyRun` did. */
export interface Applied {
  record: RunRecord;
  report: ApplyReport;
}

/** The report of an apply cut short and finished now, from its plan. */
function finishedReport(op: JournalOp, done: CarryReport): ApplyReport {
  const merged = new Set(op.merged ?? []);
  const written = new Set(done.written);
  const applied = op.plan.writes.filter((w) => written.has(w.path) && !merged.has(w.path));
  return {
    applied: applied.map((w) => w.path),
    merged: op.plan.writes.filter((w) => written.has(w.path) && merged.has(w.path)).map((w) =>
      w.path
    ),
    already: done.already,
    deleted: applied.filter((w) => w.to === null).map((w) => w.path),
    skipped: [],
  };
}

/** Mirrors the journal's applies into the record (for display). */
async function mirrorApplied(sys: HeldSys, record: RunRecord): Promise<void> {
  const ops = liveOps(await readJournal(sys.state.paths.run(record.id).journal));
  const lastRevert = ops.findLastIndex((op) => op.action === "revert" && op.ended !== undefined);
  const applies = ops.slice(lastRevert + 1).filter((op) => op.action === "apply");
  const isolation = record.isolation!;
  const last = lastOp(ops);
  if (cutShort(last) && last.action === "apply") isolation.applying = { at: last.at };
  else delete isolation.applying;
  const ended = applies.filter((op) => op.ended !== undefined);
  if (ended.length > 0) {
    const files = new Set(applies.flatMap((op) => op.plan.writes.map((w) => w.path)));
    isolation.applied = { at: ended.at(-1)!.ended!, files: [...files].sort() };
    delete record.changes!.reverted;
    delete record.changes!.reverting;
  }
}

/** Applies a finished isolate run's patch to the user's tree; see the module comment. */
export async function applyRun(
  sys: HeldSys,
  id: string,
  options: { allowDelete: boolean },
): Promise<Applied> {
  const paths = sys.state.paths;
  const record = await isolateRun(sys, id);
  const tree = await userTree(sys, record);
  const at = { sys, record, tree };
  await collectLost(at, "apply");
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
  const last = lastOp(await opsOf(at));
  let report: ApplyReport | undefined;
  if (cutShort(last) && last.action === "apply") {
    // An apply cut short: finished from its own plan (its merges were decided then).
    const done = await finishOp(at, last);
    if (done !== null) report = finishedReport(last, done);
  }
  if (report === undefined) {
    const planned = await tree.planApply(changes.before, changes.after, {
      allowDelete: options.allowDelete,
      runId: id,
    });
    report = planned.report;
    if (planned.plan.writes.length > 0) {
      record.isolation!.applying = { at: sys.clock.now() };
      await saveChanged(sys, record, "apply");
      await pausePoint(sys, "applying");
      try {
        await carryNew(at, {
          action: "apply",
          plan: planned.plan,
          ...(report.merged.length > 0 ? { merged: report.merged } : {}),
        });
      } catch (error) {
        // The record says what the journal says, whatever stopped the apply.
        await mirrorApplied(sys, record);
        await saveChanged(sys, record, "apply");
        throw error;
      }
    }
  }
  await mirrorApplied(sys, record);
  await saveChanged(sys, record, "apply");
  await indexRun(sys, record);
  return { record, report };
}

/**
 * Removes an isolate run's private copy; the patch and the record stay (an apply cut short can
 * still be finished or taken back: everything it needs is in Pitroom's store). The copy is moved
 * aside first, so a discard cut short is finished by the next one.
 */
export async function discardRun(sys: HeldSys, id: string): Promise<RunRecord> {
  const paths = sys.state.paths;
  const record = await isolateRun(sys, id);
  const isolation = record.isolation!;
  const aside = `${isolation.copyRoot}.discarding`;
  if (isolation.discarded !== undefined) {
    await removeIfThere(aside);
    return record;
  }
  const tree = record.repoRoot === undefined
    ? null
    : await trackTree(sys, paths, record.repoRoot).catch(() => null);
  // A lost run's work is collected into its patch before the copy goes.
  if (tree !== null) await collectLost({ sys, record, tree }, "discard");
  if (await exists(isolation.copyRoot)) {
    await removeIfThere(aside);
    await Deno.rename(isolation.copyRoot, aside);
  }
  await pausePoint(sys, "discarding");
  await removeIfThere(aside);
  isolation.discarded = { at: sys.clock.now() };
  await saveChanged(sys, record, "discard");
  await indexRun(sys, record);
  return record;
}
