/**
 * Writes into the user's tree as journaled operations (store/journal.ts): the whole plan is on
 * disk before the first file is written and the end after the last, each file is written
 * atomically (vcs/carry_out.ts), so a kill at any point leaves an operation the next command
 * finishes (the same command) or takes back (its opposite). What a run's tree state is (applied,
 * reverted, cut short) is derived from these operations and the tree; the run record's fields
 * only mirror it for display. Records from before the journal are read as operations once.
 */
import type { HeldSys } from "../../store/state.ts";
import {
  beginOp,
  endOp,
  type JournalOp,
  liveOps,
  nextOpNumber,
  readJournal,
  voidOp,
} from "../../store/journal.ts";
import type { RunRecord } from "../../store/record.ts";
import { RefusedError } from "../../sys/errors.ts";
import {
  type CarryReport,
  PlanBlocked,
  type PlannedWrite,
  progressOf,
  type TreePlan,
} from "../../vcs/mod.ts";
import { pausePoint } from "../core/pause.ts";
import type { TrackedTree } from "./tree.ts";
import { MODES } from "../../workers/modes.ts";

/** A run and the user's tree its operations write into. */
export interface RunTree {
  sys: HeldSys;
  record: RunRecord;
  tree: TrackedTree;
}

/** A new operation: what it does and its plan. */
export type NewOp = Omit<JournalOp, "n" | "at" | "ended" | "voided">;

/** The name of an operation's temporary files in the user's folders. */
function tagOf(record: RunRecord, n: number): string {
  return `${record.id.slice(-4)}-${n}`;
}

/** Carries out `plan` as the operation `op`: pause points for crash tests between files. */
async function carry(
  { sys, record, tree }: RunTree,
  op: { n: number; plan: TreePlan },
): Promise<CarryReport> {
  return await tree.carryOut(op.plan, {
    tag: tagOf(record, op.n),
    afterEach: (count) => pausePoint(sys, `wrote:${count}`),
  });
}

/** A run's journal, with a record from before the journal read as operations (written once). */
export async function opsOf({ sys, record, tree }: RunTree): Promise<JournalOp[]> {
  const path = sys.state.paths.run(record.id).journal;
  const ops = await readJournal(path);
  if (ops.length > 0) return ops;
  const legacy: NewOp[] = [];
  const applied = record.isolation?.applied;
  if (applied?.before !== undefined && applied.after !== undefined) {
    legacy.push({ action: "apply", plan: await tree.planBetween(applied.before, applied.after) });
  }
  if (record.changes?.reverted) legacy.push({ action: "revert", scope: "worker", plan: EMPTY });
  if (record.changes?.othersReverted) {
    legacy.push({ action: "revert", scope: "others", plan: EMPTY });
  }
  if (legacy.length === 0) return [];
  for (const [i, op] of legacy.entries()) {
    await beginOp(path, { ...op, n: i + 1, at: sys.clock.now() });
    await endOp(path, { n: i + 1, at: sys.clock.now() });
  }
  return await readJournal(path);
}

const EMPTY: TreePlan = { writes: [], prune: [], made: [] };

/** The last operation that counts (given-up ones aside), if any. */
export function lastOp(ops: readonly JournalOp[]): JournalOp | undefined {
  return liveOps(ops).at(-1);
}

/** True when the operation was cut short (it has no end). */
export function cutShort(op: JournalOp | undefined): op is JournalOp {
  return op !== undefined && op.ended === undefined;
}

/** Journals and carries out a new operation; returns it (ended) and what was written. */
export async function carryNew(
  at: RunTree,
  op: NewOp,
): Promise<{ op: JournalOp; report: CarryReport }> {
  const { sys, record } = at;
  const path = sys.state.paths.run(record.id).journal;
  const n = nextOpNumber(await readJournal(path));
  const begun: JournalOp = { ...op, n, at: sys.clock.now() };
  await beginOp(path, begun);
  await pausePoint(sys, "wrote:0");
  let report: CarryReport;
  try {
    report = await carry(at, begun);
  } catch (error) {
    // Refused before anything was written: the operation is void.
    if (error instanceof PlanBlocked) await voidOp(path, { n, at: sys.clock.now() });
    throw error;
  }
  const ended = sys.clock.now();
  await endOp(path, { n, at: ended });
  await pausePoint(sys, "journaled");
  return { op: { ...begun, ended }, report };
}

/**
 * Finishes an operation cut short. When changed files block it and it had written nothing, it
 * is given up (voided) and null returned: the caller plans afresh. When it had written some
 * files, the refusal stands: its opposite command takes those back.
 */
export async function finishOp(at: RunTree, op: JournalOp): Promise<CarryReport | null> {
  const { sys, record, tree } = at;
  const path = sys.state.paths.run(record.id).journal;
  try {
    const report = await carry(at, op);
    await endOp(path, { n: op.n, at: sys.clock.now() });
    await pausePoint(sys, "journaled");
    return report;
  } catch (error) {
    if (!(error instanceof PlanBlocked)) throw error;
    const { now, fileMode } = await tree.states(op.plan.writes.map((w) => w.path));
    if (progressOf(op.plan, now, { fileMode }).done.length > 0) throw cutAndChanged(at, op, error);
    await voidOp(path, { n: op.n, at: sys.clock.now() });
    return null;
  }
}

/** The refusal of an operation cut short that files changed since keep from being finished. */
function cutAndChanged({ record }: RunTree, op: JournalOp, blocked: PlanBlocked): RefusedError {
  const id = record.id;
  const paths = [...blocked.paths, ...blocked.inTheWay];
  const shown = paths.slice(0, 10).map((p) => `"${p}"`).join(", ");
  const more = paths.length > 10 ? ` and ${paths.length - 10} more` : "";
  const hint = op.action === "apply"
    ? `take back what it wrote with \`pitroom revert ${id}\` (your changes are merged, or kept)`
    : MODES[record.mode].usesCopy
    ? `put back what it took out with \`pitroom apply ${id}\``
    : `see what it would write with \`pitroom show ${id} --patch\`; put those files back as it left them, then revert again`;
  return new RefusedError(
    "cut_short_changed",
    `The ${op.action} of run "${id}" was cut short and ${paths.length} of its file(s) changed since, so it cannot be finished: ${shown}${more}`,
    { hint, cause: blocked },
  );
}

/**
 * The writes that take back `ops` (applied one after the other): each path from what the last
 * of them wrote back to what the first of them found; folders they made are pruned.
 */
export function reverseOf(ops: readonly JournalOp[]): TreePlan {
  const first = new Map<string, PlannedWrite>();
  const last = new Map<string, PlannedWrite>();
  const prune = new Set<string>();
  const made = new Set<string>();
  for (const op of ops) {
    for (const write of op.plan.writes) {
      if (!first.has(write.path)) first.set(write.path, write);
      last.set(write.path, write);
    }
    op.plan.made.forEach((dir) => prune.add(dir));
    op.plan.prune.forEach((dir) => made.add(dir));
  }
  const writes: PlannedWrite[] = [];
  for (const [path, write] of first) {
    const from = last.get(path)!.to;
    const to = write.from;
    const same = from === null ? to === null : to !== null && from.blob === to.blob &&
      from.mode === to.mode;
    if (!same) writes.push({ path, from, to });
  }
  const deepest = (dirs: Set<string>) =>
    [...dirs].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? -1 : 1));
  return { writes, prune: deepest(prune), made: deepest(made) };
}
