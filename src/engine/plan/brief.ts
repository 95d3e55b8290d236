/**
 * The implementer brief of `run --plan PLAN --step N`: the implementer template filled with the
 * plan's title, header, Spec and Global Constraints, task N's text and the controller's notes.
 */
import type { LoadedPlan } from "./load.ts";
import type { PlanTask } from "./parse.ts";
import { fill } from "./templates.ts";

/** The brief a plan task's implementer gets. */
export function implementerBrief(loaded: LoadedPlan, task: PlanTask, notes: string): string {
  const { plan } = loaded;
  return fill("implementer", {
    plan_title: plan.title,
    plan_header: plan.header,
    plan_spec: plan.spec,
    plan_constraints: plan.constraints,
    step: String(task.step),
    task_count: String(plan.tasks.length),
    task_body: task.body,
    notes,
  });
}
