/**
 * `pitroom plan status PLAN`: where a plan stands, rebuilt from the run records and the plan's
 * notes alone (so a controller whose context was compacted, or a fresh process, sees the same).
 * One row per task: its state, the last implementer status, the last review's verdict, the fix
 * rounds, whether it was applied, its last note; then every ruling, and the range reviews.
 */
import type { HeldSys } from "../../store/state.ts";
import { isFinal, type ReviewVerdict, type RunRecord } from "../../store/record.ts";
import { asSeen } from "../host/liveness.ts";
import { type LoadedPlan, loadPlan } from "./load.ts";
import { type PlanNote, readNotes } from "./notes.ts";
import { MODES } from "../../workers/modes.ts";

/** A review as plan status shows it. */
export interface ReviewRow {
  run: string;
  kind: "task" | "fix" | "range";
  /** The run reviewed (task and fix reviews). */
  of?: string;
  state: RunRecord["state"];
  spec?: "PASS" | "FAIL";
  quality?: "APPROVED" | "NEEDS-FIXES";
  /** False for a review that ended without both verdict lines (a failed review). */
  complete: boolean;
  findings: { critical: number; important: number; minor: number };
  cannotVerify: number;
}

/** One task of the plan. */
export interface TaskRow {
  step: number;
  title: string;
  tier?: string;
  /** `pending`, `running`, `in progress` (runs, none live), `applied`, or `complete` (a note). */
  state: "pending" | "running" | "in progress" | "applied" | "complete";
  /** The task's implementer runs, oldest first. */
  runs: string[];
  lastRun?: string;
  /** The last finished implementer run's status (`unknown` without a status line). */
  implementer?: string;
  openIssues: string[];
  /**
   * The newest review of the task that gave a verdict (a SPEC or QUALITY line), else the newest
   * review: a later attempt that failed or is still going never hides an earlier verdict.
   */
  lastReview?: ReviewRow;
  /** The newest review when it came after `lastReview` without a verdict (failed or going). */
  newerReview?: ReviewRow;
  /** Implementer runs after the task's first review. */
  fixRounds: number;
  applied: boolean;
  lastNote?: string;
}

/** Where a plan stands. */
export interface PlanStatus {
  plan: string;
  title: string;
  group: string;
  tasks: TaskRow[];
  /** Every note with `Ruling:`, in the order they were noted. */
  rulings: PlanNote[];
  /** Range reviews that carried this plan, oldest first. */
  rangeReviews: ReviewRow[];
  notes: number;
}

function reviewRow(r: RunRecord): ReviewRow {
  const info = r.review!;
  const verdict: ReviewVerdict | undefined = info.verdict;
  const count = (s: string) => verdict?.findings.filter((f) => f.severity === s).length ?? 0;
  return {
    run: r.id,
    kind: info.kind,
    ...(info.of === undefined ? {} : { of: info.of }),
    state: r.state,
    ...(verdict?.spec === undefined ? {} : { spec: verdict.spec }),
    ...(verdict?.quality === undefined ? {} : { quality: verdict.quality }),
    complete: verdict?.complete === true,
    findings: { critical: count("Critical"), important: count("Important"), minor: count("Minor") },
    cannotVerify: verdict?.cannotVerify.length ?? 0,
  };
}

/** True when a review ended with at least one verdict line. */
function hasVerdict(r: RunRecord): boolean {
  const v = r.review?.verdict;
  return v?.spec !== undefined || v?.quality !== undefined;
}

function byCreation(a: RunRecord, b: RunRecord): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1);
}

/** Every run record of the state dir that belongs to a plan (its runs and their reviews). */
async function planRecords(sys: HeldSys, path: string): Promise<RunRecord[]> {
  const all: RunRecord[] = [];
  for (const id of await sys.state.runs.ids()) {
    const r = await sys.state.runs.read(id);
    if (r !== null && (r.plan !== undefined || r.review !== undefined)) all.push(r);
  }
  const ours = new Set(all.filter((r) => r.plan?.path === path && !r.review).map((r) => r.id));
  const out: RunRecord[] = [];
  for (const r of all) {
    const mine = ours.has(r.id) || r.review?.plan === path ||
      (r.review?.of !== undefined && ours.has(r.review.of));
    if (mine) out.push(await asSeen(sys, r));
  }
  return out.sort(byCreation);
}

/** The status of a plan from its runs and notes. */
export async function planStatus(sys: HeldSys, typed: string): Promise<PlanStatus> {
  const loaded = await loadPlan(sys, typed);
  return statusOf(loaded, await planRecords(sys, loaded.path), await readNotes(sys, loaded.path));
}

/** The status of a loaded plan, given its records and notes (pure). */
export function statusOf(
  loaded: LoadedPlan,
  records: readonly RunRecord[],
  notes: readonly PlanNote[],
): PlanStatus {
  const reviews = records.filter((r) => r.review !== undefined);
  const tasks = loaded.plan.tasks.map((task): TaskRow => {
    const runs = records.filter((r) => r.review === undefined && r.plan?.step === task.step);
    const ids = new Set(runs.map((r) => r.id));
    const taskReviews = reviews.filter((r) => r.review!.of !== undefined && ids.has(r.review!.of));
    const firstReview = taskReviews[0]?.createdAt;
    const finished = runs.filter((r) => isFinal(r.state));
    const last = finished.at(-1);
    const applied = runs.some((r) =>
      r.isolation?.applied !== undefined && r.changes?.reverted !== true ||
      MODES[r.mode].editsInPlace && r.outcome === "ok" && r.changes?.reverted !== true &&
        (r.changes?.files.length ?? 0) > 0
    );
    const taskNotes = notes.filter((n) => n.step === task.step);
    const complete = taskNotes.some((n) => /^\s*task\s+\d+\s*:\s*complete\b/i.test(n.text));
    const live = [...runs, ...taskReviews].some((r) => !isFinal(r.state));
    const state: TaskRow["state"] = complete
      ? "complete"
      : live
      ? "running"
      : applied
      ? "applied"
      : runs.length > 0
      ? "in progress"
      : "pending";
    const newest = taskReviews.at(-1);
    const lastReview = taskReviews.findLast(hasVerdict) ?? newest;
    return {
      step: task.step,
      title: task.title,
      ...(task.tier === undefined ? {} : { tier: task.tier }),
      state,
      runs: runs.map((r) => r.id),
      ...(runs.length > 0 ? { lastRun: runs.at(-1)!.id } : {}),
      ...(last?.implementer ? { implementer: last.implementer.status } : {}),
      openIssues: last?.implementer?.openIssues ?? [],
      ...(lastReview === undefined ? {} : { lastReview: reviewRow(lastReview) }),
      ...(newest === undefined || newest === lastReview ? {} : { newerReview: reviewRow(newest) }),
      fixRounds: firstReview === undefined
        ? 0
        : runs.filter((r) => r.createdAt > firstReview).length,
      applied,
      ...(taskNotes.length > 0 ? { lastNote: taskNotes.at(-1)!.text } : {}),
    };
  });
  return {
    plan: loaded.path,
    title: loaded.plan.title,
    group: loaded.group,
    tasks,
    rulings: notes.filter((n) => n.ruling),
    rangeReviews: reviews.filter((r) => r.review!.kind === "range").map(reviewRow),
    notes: notes.length,
  };
}
