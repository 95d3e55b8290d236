/**
 * `pitroom revert`: takes a finished run's changes back out of the user's tree, as one journaled
 * operation (engine/tree/journaled.ts), checked in full before anything is written.
 *
 * A write (or violating read) run's revert writes each of the worker's files back as it was
 * before the run; an applied isolate run's revert takes back exactly what its applies wrote. A
 * file the user changed since (or, during the run, around the worker's edit) is merged three
 * ways so only the worker's change goes; where that cannot be done cleanly the file is left as it
 * is, named, and its versions are kept in the run folder (`kept/`): revert never picks between the
 * user's lines and the worker's. A revert cut short is finished by the next one; "reverted" is
 * what the journal says, never a flag alone.
 */
import type { HeldSys } from "../../store/state.ts";
import type { StatePaths } from "../../store/paths.ts";
import { type Changes, isFinal, type LeftFile, type RunRecord } from "../../store/record.ts";
import { type JournalOp, liveOps, readJournal } from "../../store/journal.ts";
import { indexRun } from "../../store/history/mod.ts";
import { holdWriter } from "../tree/writer.ts";
import type { HeldLock } from "../../store/locks.ts";
import { writePatch } from "../../store/patch_file.ts";
import { RefusedError } from "../../sys/errors.ts";
import { removeIfThere } from "../../sys/fs.ts";
import { type TreePlan, undoing } from "../../vcs/mod.ts";
import { reconcile } from "../host/liveness.ts";
import { pausePoint } from "../core/pause.ts";
import { type TrackedTree, trackTree } from "../tree/tree.ts";
import { splitChanges } from "../tree/worker_changes.ts";
import {
  carryNew,
  cutShort,
  finishOp,
  lastOp,
  opsOf,
  reverseOf,
  type RunTree,
} from "../tree/journaled.ts";
import { runPatch } from "../tree/run_patch.ts";
import { leftRefusal, mergeChanged, settle, takeOutSegments } from "../tree/revert_merge.ts";
import { MODES } from "../../workers/modes.ts";
import { saveChanged } from "./changed.ts";

/** Options of `revertRun`. */
export interface RevertRunOptions {
  /**
   * Undo also the files changed while the run worked that no tool call of the worker could have
   * changed (`changes.others`). @default false
   */
  all?: boolean;
  /** Revert although HEAD or the index moved while the run worked. @default false */
  force?: boolean;
}

/** Which files a revert of a write or read run takes out. */
type Scope = "worker" | "others" | "all";

/** Mirrors the journal's reverts into the record (for display). */
function mirror(record: RunRecord, ops: readonly JournalOp[], left?: LeftFile[]): void {
  const changes = record.changes!;
  const live = liveOps(ops);
  const lastRevert = live.findLastIndex((op) => op.action === "revert" && op.ended !== undefined);
  const lastApply = live.findLastIndex((op) => op.action === "apply");
  const reverts = live.filter((op, i) => op.action === "revert" && op.ended && i > lastApply);
  const done = (scope: Scope) => reverts.some((op) => op.scope === scope || op.scope === "all");
  if (MODES[record.mode].usesCopy) {
    if (lastRevert > lastApply) changes.reverted = true;
    else delete changes.reverted;
  } else {
    if (done("worker")) changes.reverted = true;
    if (done("others")) changes.othersReverted = true;
  }
  const cut = lastOp(ops);
  if (cutShort(cut) && cut.action === "revert") changes.reverting = { at: cut.at };
  else delete changes.reverting;
  if (cutShort(cut) && cut.action === "apply") {
    record.isolation!.applying = { at: cut.at };
  } else if (record.isolation) delete record.isolation.applying;
  if (left !== undefined) {
    if (left.length > 0) changes.left = left;
    else delete changes.left;
  }
}

/** Writes a captured run's patch (the worker's part of shared files only). */
async function runPatchOf(sys: HeldSys, record: RunRecord, tree: TrackedTree): Promise<void> {
  const changes = record.changes!;
  const whole = await tree.patch(changes.before, changes.after, changes.files.map((f) => f.path));
  const patch = await runPatch(tree, changes, whole);
  changes.patchDigest = await writePatch(sys.state.paths.run(record.id).patch, patch);
}

/** Writes the record, and tells the live readers that a revert changed it. */
async function save(sys: HeldSys, record: RunRecord): Promise<void> {
  await saveChanged(sys, record, "revert");
}

/** Runs `fn`; when it fails, the record is brought back in line with the journal first. */
async function journaled<T>(sys: HeldSys, record: RunRecord, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    mirror(record, await readJournal(sys.state.paths.run(record.id).journal));
    await save(sys, record);
    throw error;
  }
}

/**
 * Captures a lost write run's changes now: the supervisor died before collecting, so only what
 * the worker's recorded calls could have changed before its last recorded activity is its own.
 */
async function captureLost({ sys, record, tree }: RunTree): Promise<void> {
  const changes = record.changes!;
  const after = (await tree.snapshot({ base: changes.before })).tree;
  const diff = await tree.diff(changes.before, after);
  await pausePoint(sys, "capturing");
  const split = await splitChanges(sys, record, diff.files, {
    root: tree.root,
    entries: diff.entries,
  });
  changes.after = after;
  changes.files = split.files;
  if (split.others) changes.others = split.others;
  else delete changes.others;
  if (split.shared) changes.shared = split.shared;
  else delete changes.shared;
  if (MODES[record.mode].editsInPlace) {
    // Since the run began: whether during it or after its supervisor died cannot be told.
    const kept = sys.state.paths.run(record.id).userIndex;
    const moved = await tree.moved(changes.before, kept);
    if (moved !== undefined) changes.moved = moved;
    await removeIfThere(kept);
  }
  await runPatchOf(sys, record, tree);
  await save(sys, record);
}

/** The refusal of a revert of a run whose HEAD or index moved while it worked. */
function movedRefusal(id: string, changes: Changes): RefusedError {
  const moved = changes.moved!;
  const what = [
    moved.head
      ? `HEAD moved from ${moved.head.from?.slice(0, 12) ?? "no commit"} to ${
        moved.head.to?.slice(0, 12) ?? "no commit"
      } (a commit, a branch switch or a reset)`
      : "",
    moved.index ? "the index or the stash changed (git add, stash, reset or commit)" : "",
  ].filter(Boolean).join(" and ");
  return new RefusedError(
    "tree_moved",
    `Cannot revert run "${id}" without \`force\`: while it worked, ${what}, so its files may belong to another state of your work`,
    {
      hint:
        `check \`pitroom show ${id} --patch\` and \`git status\`, then \`pitroom revert ${id} --force\``,
    },
  );
}

/**
 * The run's journal, with a revert cut short finished first (its merges were decided then); null
 * when finishing it reverted the run (the record then says so).
 */
async function finishCutShort(at: RunTree): Promise<JournalOp[] | null> {
  const { sys, record } = at;
  const journal = sys.state.paths.run(record.id).journal;
  const ops = await opsOf(at);
  const last = lastOp(ops);
  if (!cutShort(last) || last.action !== "revert") return ops;
  if (await finishOp(at, last) === null) return await readJournal(journal);
  mirror(record, await readJournal(journal), last.left ?? []);
  await save(sys, record);
  await indexRun(sys, record);
  return null;
}

/** Reverts a write or read run in place; see the module comment. */
async function revertInPlace(at: RunTree, options: RevertRunOptions): Promise<RunRecord> {
  const { sys, record, tree } = at;
  const id = record.id;
  const changes = record.changes!;
  const journal = sys.state.paths.run(id).journal;
  const resumed = await finishCutShort(at);
  if (resumed === null) return record;
  const ops = resumed;
  if (record.state === "lost" && liveOps(ops).length === 0) await captureLost(at);
  const reverts = liveOps(ops).filter((op) => op.action === "revert" && op.ended !== undefined);
  const done = (scope: Scope) => reverts.some((op) => op.scope === scope || op.scope === "all");
  const others = changes.others ?? [];
  const chosen = new Set<string>();
  const worker = !done("worker");
  const alsoOthers = options.all === true && !done("others") && others.length > 0;
  if (worker) { for (const file of changes.files) chosen.add(file.path); }
  if (alsoOthers) { for (const file of others) chosen.add(file.path); }
  if (!worker && !alsoOthers) {
    mirror(record, ops);
    await save(sys, record);
    throw new RefusedError("already_reverted", `Run "${id}" was reverted already`, {
      ...(changes.left?.length
        ? {
          hint: `${changes.left.length} file(s) were left as they were: see \`pitroom show ${id}\``,
        }
        : {}),
    });
  }
  if (chosen.size === 0) {
    throw new RefusedError(
      "nothing_to_revert",
      others.length === 0
        ? `Run "${id}" changed no file`
        : `Run "${id}" changed no file through its tools: ${others.length} file(s) changed while it worked, not by a tool the worker called`,
      others.length === 0 ? {} : { hint: `undo those too with \`pitroom revert ${id} --all\`` },
    );
  }
  if (changes.moved !== undefined && !options.force) throw movedRefusal(id, changes);
  await pausePoint(sys, "reverting");
  const scope: Scope = worker && alsoOthers ? "all" : worker ? "worker" : "others";
  // A file the user changed too: only the worker's segments are taken out (not with --all,
  // which takes the whole file back to the state the run began in).
  const shared = scope === "worker" ? (changes.shared ?? []).filter((f) => chosen.has(f.path)) : [];
  const sharedPaths = new Set(shared.map((f) => f.path));
  const only = new Set([...chosen].filter((path) => !sharedPaths.has(path)));
  const planned = await tree.planRevert(changes.before, changes.after, { only });
  const merged = await mergeChanged(at, planned.changed.map(undoing));
  const split = await takeOutSegments(at, shared);
  const plan: TreePlan = {
    ...planned.plan,
    writes: [...planned.plan.writes, ...merged.writes, ...split.writes],
  };
  const left = [...merged.left, ...split.left];
  if (plan.writes.length === 0) {
    changes.left = left;
    await save(sys, record);
    throw leftRefusal(id, left);
  }
  changes.reverting = { at: sys.clock.now() };
  await save(sys, record);
  await journaled(
    sys,
    record,
    () => carryNew(at, { action: "revert", scope, plan, left }),
  );
  mirror(record, await readJournal(journal), left);
  await save(sys, record);
  await indexRun(sys, record);
  return record;
}

/** Reverts an applied isolate run: takes back what its applies wrote; see the module comment. */
async function revertApplied(at: RunTree): Promise<RunRecord> {
  const { sys, record } = at;
  const id = record.id;
  const journal = sys.state.paths.run(id).journal;
  const resumed = await finishCutShort(at);
  if (resumed === null) return record;
  const ops = resumed;
  const live = liveOps(ops);
  const lastRevert = live.findLastIndex((op) => op.action === "revert" && op.ended !== undefined);
  const applies = live.slice(lastRevert + 1).filter((op) => op.action === "apply");
  if (applies.length === 0) {
    mirror(record, ops);
    await save(sys, record);
    if (lastRevert >= 0) {
      throw new RefusedError("already_reverted", `Run "${id}" was reverted already`);
    }
    throw new RefusedError(
      "not_applied",
      `Run "${id}" worked in a private copy and was not applied: your tree has none of its changes`,
      { hint: `drop the copy with \`pitroom discard ${id}\`` },
    );
  }
  await pausePoint(sys, "reverting");
  const { plan, left } = await settle(at, reverseOf(applies));
  if (plan.writes.length === 0 && left.length > 0) {
    record.changes!.left = left;
    await save(sys, record);
    throw leftRefusal(id, left);
  }
  record.changes!.reverting = { at: sys.clock.now() };
  await save(sys, record);
  await journaled(sys, record, () => carryNew(at, { action: "revert", plan, left }));
  mirror(record, await readJournal(journal), left);
  await save(sys, record);
  await indexRun(sys, record);
  return record;
}

/**
 * The repository at `root` that run `id`'s revert writes in, with its writer lock held: no write
 * run works, and no apply or revert of another run writes, while the revert does. Refused when
 * it is no longer a git repository, or while the lock is held.
 */
export async function revertWriter(
  sys: HeldSys,
  paths: StatePaths,
  root: string,
  id: string,
): Promise<{ tree: TrackedTree; lock: HeldLock }> {
  const tree = await trackTree(sys, paths, root);
  if (tree === null) throw new RefusedError("no_repo", `"${root}" is no longer a git repository`);
  const lock = await holdWriter(
    sys,
    paths,
    tree,
    `revert ${id}`,
    `revert once it is done: \`pitroom revert ${id}\``,
  );
  return { tree, lock };
}

/**
 * Undoes exactly a finished run's changes (checked first): the files its worker's recorded tool
 * calls could have changed, and with `all` the others too; an applied isolate run's apply. A
 * lost write run's changes are captured now; a run that changed nothing has nothing to revert.
 */
export async function revertRun(
  sys: HeldSys,
  id: string,
  options: RevertRunOptions = {},
): Promise<RunRecord> {
  const paths = sys.state.paths;
  const record = await reconcile(sys, await sys.state.runs.load(id));
  if (!isFinal(record.state)) {
    throw new RefusedError("run_live", `Run "${id}" is still ${record.state}`, {
      hint: `stop it first with \`pitroom stop ${id}\``,
    });
  }
  const changes = record.changes;
  if (changes === undefined || record.repoRoot === undefined) {
    throw new RefusedError("nothing_to_revert", `Run "${id}" changed nothing Pitroom can revert`);
  }
  const { tree, lock } = await revertWriter(sys, paths, record.repoRoot, id);
  using _writer = lock;
  const at = { sys, record, tree };
  if (MODES[record.mode].usesCopy) return await revertApplied(at);
  return await revertInPlace(at, options);
}
