/**
 * A plan of writes into the work tree: for each path, what it holds before and what it will hold
 * after (an entry, or no file), and the folders that appear or go. Every write of Pitroom into the
 * user's tree (apply, revert, a read run's undo) is such a plan, made and checked in full before
 * anything is written, then carried out file by file (`carry_out.ts`), each file atomically.
 *
 * A plan says where each path stands now without any record of its own: a path holding `to` is
 * done, one holding `from` is still to do, anything else changed under the plan. So a plan cut
 * short (a kill between two files) is finished by carrying it out again, and rolled back by
 * carrying out its reverse; the engine keeps the plan itself in the run's journal. Pure.
 */
import type { Entry, PathState } from "./worktree_state.ts";
import { changedSince } from "./worktree_state.ts";

/** One path of a plan: what it holds before and after (null: no file). */
export interface PlannedWrite {
  path: string;
  from: Entry | null;
  to: Entry | null;
}

/** A plan of writes. */
export interface TreePlan {
  writes: PlannedWrite[];
  /** Folders the plan removes once they are empty (its removals emptied them), deepest first. */
  prune: string[];
  /** Folders the plan makes (they did not exist when it was made): its reverse prunes them. */
  made: string[];
}

/** Where each write of a plan stands in the tree now. */
export interface PlanProgress {
  /** Paths that hold `to` already. */
  done: PlannedWrite[];
  /** Paths that still hold `from`. */
  todo: PlannedWrite[];
  /** Paths that hold neither: something changed them under the plan. */
  neither: PlannedWrite[];
}

/** The plan that undoes `plan`. */
export function reversePlan(plan: TreePlan): TreePlan {
  return {
    writes: plan.writes.map((w) => ({ path: w.path, from: w.to, to: w.from })),
    prune: [...plan.made],
    made: [...plan.prune],
  };
}

/** Sorts the writes of `plan` by what the tree holds now (`now`, from `readPathStates`). */
export function progressOf(
  plan: TreePlan,
  now: Map<string, PathState>,
  options: { fileMode: boolean },
): PlanProgress {
  const out: PlanProgress = { done: [], todo: [], neither: [] };
  const notTo = new Set(
    changedSince(new Map(plan.writes.map((w) => [w.path, w.to])), now, options),
  );
  const notFrom = new Set(
    changedSince(new Map(plan.writes.map((w) => [w.path, w.from])), now, options),
  );
  for (const write of plan.writes) {
    if (!notTo.has(write.path)) out.done.push(write);
    else if (!notFrom.has(write.path)) out.todo.push(write);
    else out.neither.push(write);
  }
  return out;
}

/** Parent folders of `paths`, deepest first (then by name). */
export function parentsDeepestFirst(paths: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    for (let cut = path.lastIndexOf("/"); cut > 0; cut = path.lastIndexOf("/", cut - 1)) {
      dirs.add(path.slice(0, cut));
    }
  }
  return [...dirs].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? -1 : 1));
}

/** Joins plans of disjoint paths (and their folders) into one. */
export function joinPlans(plans: readonly TreePlan[]): TreePlan {
  const prune = new Set<string>();
  const made = new Set<string>();
  for (const plan of plans) {
    plan.prune.forEach((dir) => prune.add(dir));
    plan.made.forEach((dir) => made.add(dir));
  }
  const deepest = (dirs: Set<string>) =>
    [...dirs].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? -1 : 1));
  return { writes: plans.flatMap((p) => p.writes), prune: deepest(prune), made: deepest(made) };
}
