/**
 * `revert` of a run whose run.json is damaged, in the repository the history's copy of its
 * record names. Journaled like every revert (engine/tree/journaled.ts): a revert cut short is finished
 * first; an applied isolate run whose applies the journal holds is taken back from there (its
 * files merged where the user changed them since, as a plain revert does); otherwise the run's
 * patch is undone (vcs/patch_undo.ts: checked first, refused when anything changed since, said
 * so when it is undone already), planned into Pitroom's store and written file by file
 * atomically. The patch holds the worker's files only, so `--all` (the files changed beside the
 * worker) needs the record and is refused. The damaged run.json stays as it is, for the user to
 * look at; the journal beside it and the history's copy (marked reverted) are written.
 */
import type { HeldSys } from "../../store/state.ts";
import { indexRun } from "../../store/history/mod.ts";
import { liveOps, readJournal } from "../../store/journal.ts";
import { readPatchChecked } from "../../store/patch_file.ts";
import type { LeftFile, RunRecord } from "../../store/record.ts";
import { type DamagedRecord, RefusedError } from "../../sys/errors.ts";
import type { TreePlan } from "../../vcs/mod.ts";
import { historyCopy } from "./damage.ts";
import {
  carryNew,
  cutShort,
  finishOp,
  lastOp,
  reverseOf,
  type RunTree,
} from "../tree/journaled.ts";
import { pausePoint } from "../core/pause.ts";
import { leftRefusal, settle } from "../tree/revert_merge.ts";
import { revertWriter } from "./revert.ts";
import { MODES } from "../../workers/modes.ts";

/** The history's copy as reverted: only the files this revert wrote, those it left named. */
async function reverted(
  sys: HeldSys,
  copy: RunRecord,
  written: readonly string[],
  left: LeftFile[],
): Promise<RunRecord> {
  const changes = copy.changes!;
  const done = new Set([...written, ...left.map((f) => f.path)]);
  await indexRun(sys, {
    ...copy,
    changes: { ...changes, reverted: true, ...(left.length > 0 ? { left } : {}) },
  });
  return {
    ...copy,
    changes: {
      ...changes,
      files: changes.files.filter((f) => done.has(f.path)),
      others: [],
      reverted: true,
      ...(left.length > 0 ? { left } : {}),
    },
  };
}

/** Undoes the run `damage` names (see the module comment); the history's copy, as reverted. */
export async function revertFromPatch(
  sys: HeldSys,
  damage: DamagedRecord,
  options: { all?: boolean },
): Promise<RunRecord> {
  const id = damage.run;
  const copy = await historyCopy(sys, id);
  // Without the copy nothing says where the run worked, or what its patch is to the tree.
  if (copy === null || copy.repoRoot === undefined || copy.changes === undefined) throw damage;
  if (!MODES[copy.mode].keepsChanges || copy.changes.files.length === 0) {
    throw new RefusedError("nothing_to_revert", `Run "${id}" changed nothing Pitroom can revert`);
  }
  if (options.all && (copy.changes.others?.length ?? 0) > 0) {
    throw new RefusedError(
      "all_needs_record",
      `Run "${id}": \`all\` needs its run.json (the files changed beside the worker are not in its patch)`,
      { hint: `undo the worker's own changes with \`pitroom revert ${id}\`` },
    );
  }
  const paths = sys.state.paths;
  const patch = await readPatchChecked(paths.run(id).patch, copy.changes.patchDigest);
  if (patch.bytes === null || patch.damage !== null || patch.bytes.length === 0) throw damage;
  const { tree, lock } = await revertWriter(sys, paths, copy.repoRoot, id);
  using _writer = lock;
  const at: RunTree = { sys, record: copy, tree };
  const journal = paths.run(id).journal;
  let ops = await readJournal(journal);
  const last = lastOp(ops);
  if (cutShort(last) && last.action === "revert") {
    const done = await finishOp(at, last);
    if (done !== null) {
      return await reverted(sys, copy, last.plan.writes.map((w) => w.path), last.left ?? []);
    }
    ops = await readJournal(journal);
  }
  const live = liveOps(ops);
  const lastRevert = live.findLastIndex((op) => op.action === "revert" && op.ended !== undefined);
  const applies = live.slice(lastRevert + 1).filter((op) => op.action === "apply");
  // The journal says what was applied even when the history's copy is older than the apply.
  const usesCopy = MODES[copy.mode].usesCopy;
  if (usesCopy && applies.length === 0 && copy.isolation?.applied === undefined) {
    throw new RefusedError(
      "not_applied",
      `Run "${id}" worked in a private copy and was not applied: your tree has none of its changes`,
    );
  }
  let plan: TreePlan;
  let left: LeftFile[] = [];
  if (usesCopy && applies.length > 0) {
    // What its applies wrote (one cut short included), from the journal.
    ({ plan, left } = await settle(at, reverseOf(applies)));
    if (plan.writes.length === 0 && left.length > 0) throw leftRefusal(id, left);
  } else {
    // An applied isolate run: only the files its apply wrote (not those found already so).
    const applied = usesCopy ? copy.isolation?.applied?.files : undefined;
    plan = await tree.planPatchUndo(patch.bytes, {
      runId: id,
      ...(applied === undefined ? {} : { only: applied }),
    });
  }
  if (plan.writes.length === 0) {
    throw new RefusedError("nothing_to_revert", `Run "${id}": its patch holds none of its files`);
  }
  await pausePoint(sys, "reverting");
  await carryNew(at, {
    action: "revert",
    ...(usesCopy ? {} : { scope: "worker" as const }),
    plan,
    left,
  });
  return await reverted(sys, copy, plan.writes.map((w) => w.path), left);
}
