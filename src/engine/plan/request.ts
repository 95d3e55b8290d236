/**
 * A plan run's request (`run --plan PLAN --step N ["notes"]`): the task becomes the implementer
 * brief of task N (the notes inside it), the tier defaults to the task's `**Worker:**` tier, and
 * the run joins the plan's group. A follow-up (`--continue`) keeps its run's plan and step.
 */
import type { HeldSys } from "../../store/state.ts";
import type { PlanRef } from "../../store/record.ts";
import { UsageError } from "../../sys/errors.ts";
import type { RunRequest } from "../request/request.ts";
import { implementerBrief } from "./brief.ts";
import { findTask, loadPlan } from "./load.ts";

/** A request with its plan put in: the brief as the task, the tier and group set. */
export interface PlannedRequest {
  request: RunRequest;
  plan: PlanRef;
}

/** Turns a `plan`/`step` request into the run request of that task. */
export async function plannedRequest(sys: HeldSys, request: RunRequest): Promise<PlannedRequest> {
  if (request.continue !== undefined) {
    throw new UsageError("`continue` keeps the earlier run's plan and step: leave out `plan`");
  }
  if (request.tasks !== undefined) throw new UsageError("`plan` runs one task: give one step");
  if (request.plan === undefined) throw new UsageError("`step` needs `plan: PLAN`");
  if (request.step === undefined) {
    throw new UsageError("`plan` needs `step: N`", {
      hint: `see the tasks with \`pitroom plan status ${request.plan}\``,
    });
  }
  const loaded = await loadPlan(sys, request.plan);
  const task = findTask(loaded, request.step);
  const tier = request.tier ?? (request.worker === undefined ? task.tier : undefined);
  const { plan: _plan, step: _step, ...rest } = request;
  const out: RunRequest = {
    ...rest,
    task: implementerBrief(loaded, task, request.task ?? ""),
    group: request.group ?? loaded.group,
    ...(tier === undefined ? {} : { tier }),
  };
  return {
    request: out,
    plan: {
      path: loaded.path,
      step: task.step,
      title: task.title,
      ...(tier === undefined ? {} : { tier }),
    },
  };
}
