/**
 * Loading a plan file: its real path (the key of its notes and runs), its parsed text, and the
 * group its runs join (a stable name from the file's name). A missing plan, a plan without tasks
 * and an unknown step are one line each: exit 2, 3 and 2.
 */
import type { HeldSys } from "../../store/state.ts";
import { RefusedError, UsageError } from "../../sys/errors.ts";
import { basename, resolve } from "../../sys/path.ts";
import { parsePlan, type Plan, type PlanTask } from "./parse.ts";
import { kindOf, readCapped, sizeText } from "../../sys/read.ts";

/** The most a plan file may hold (1 MiB: hundreds of tasks). */
export const PLAN_LIMIT_BYTES = 1024 * 1024;

/** A plan read from its file. */
export interface LoadedPlan {
  /** The plan file's real path (symlinks resolved). */
  path: string;
  plan: Plan;
  /** The group every run of the plan joins. */
  group: string;
}

/** The group name of a plan file: `plan-` and its file name without `.md`, as a slug. */
export function planGroup(path: string): string {
  const name = basename(path).replace(/\.(md|markdown|txt)$/i, "");
  const slug = name.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "");
  return `plan-${slug || "plan"}`;
}

/** The real path of a plan file (usage error when there is none). */
export async function planPath(sys: HeldSys, typed: string): Promise<string> {
  const given = resolve(sys.cwd(), typed);
  try {
    const real = await Deno.realPath(given);
    const info = await Deno.stat(real);
    if (!info.isFile) throw new UsageError(`Plan "${typed}" is ${kindOf(info)}, not a file`);
    if (info.size > PLAN_LIMIT_BYTES) {
      throw new UsageError(
        `Plan "${typed}" holds ${info.size} bytes, more than a plan may (${
          sizeText(PLAN_LIMIT_BYTES)
        })`,
      );
    }
    return real;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`No plan "${typed}": "${given}" does not exist`);
    }
    throw error;
  }
}

/** Reads and parses a plan; refuses one without tasks or with a task number given twice. */
export async function loadPlan(sys: HeldSys, typed: string): Promise<LoadedPlan> {
  const path = await planPath(sys, typed);
  // Read to the limit at most: the file may have grown since it was checked.
  const read = await readCapped((await Deno.open(path)).readable, PLAN_LIMIT_BYTES);
  if (read.over) {
    throw new UsageError(
      `Plan "${typed}" holds more than a plan may (${sizeText(PLAN_LIMIT_BYTES)})`,
    );
  }
  const plan = parsePlan(read.text);
  if (plan.tasks.length === 0) {
    throw new RefusedError("plan_without_tasks", `Plan "${typed}" has no tasks`, {
      hint: "give each task a heading like `## Task 1: Add the parser`",
    });
  }
  const seen = new Set<number>();
  for (const task of plan.tasks) {
    if (seen.has(task.step)) {
      throw new RefusedError(
        "plan_duplicate_task",
        `Plan "${typed}" has two tasks numbered ${task.step} (line ${task.line})`,
      );
    }
    seen.add(task.step);
  }
  return { path, plan, group: planGroup(path) };
}

/** Task `step` of a plan (usage error naming the steps there are). */
export function findTask(loaded: LoadedPlan, step: number): PlanTask {
  const task = loaded.plan.tasks.find((t) => t.step === step);
  if (task === undefined) {
    const steps = loaded.plan.tasks.map((t) => t.step).join(", ");
    throw new UsageError(`Plan "${basename(loaded.path)}" has no Task ${step}: it has ${steps}`);
  }
  return task;
}
