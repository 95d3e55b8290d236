/**
 * From a review request to the read run that does it: the package (package.ts) as its task,
 * the reviewer (worker.ts), the reviewed run's group (or the plan's), and the `review` the
 * record keeps. The caller creates and executes the run like any other.
 */
import type { HeldSys } from "../../store/state.ts";
import type { ReviewInfo } from "../../store/record.ts";
import { resolveRun } from "../runs/select.ts";
import { resolve } from "../../sys/path.ts";
import { exists } from "../../sys/fs.ts";
import { reconcile } from "../host/liveness.ts";
import type { LoadedSettings } from "../core/load_settings.ts";
import { loadPlan } from "../plan/load.ts";
import { readNotes } from "../plan/notes.ts";
import type { RunRequest } from "../request/request.ts";
import { rangePackage, runPackage } from "./package.ts";
import type { ReviewRequest } from "./request.ts";
import { chooseReviewer } from "./worker.ts";

/** A review, ready to run. */
export interface PreparedReview {
  run: RunRequest;
  review: ReviewInfo;
  warnings: string[];
}

/** Builds the package and the run request of a review. */
export async function prepareReview(
  sys: HeldSys,
  request: ReviewRequest,
  loaded: LoadedSettings,
): Promise<PreparedReview> {
  const common = {
    mode: "read" as const,
    ...(request.model === undefined ? {} : { model: request.model }),
    ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    ...(request.background === true ? { background: true } : {}),
  };
  const pick = (implementer: string | undefined, range: boolean) => {
    const choice = chooseReviewer(loaded.settings, {
      ...(request.worker === undefined ? {} : { worker: request.worker }),
      ...(request.tier === undefined ? {} : { tier: request.tier }),
      ...(implementer === undefined ? {} : { implementer }),
      range,
    });
    const who = {
      ...(choice.worker === undefined ? {} : { worker: choice.worker }),
      ...(choice.tier === undefined ? {} : { tier: choice.tier }),
    };
    return { who, warnings: choice.warnings };
  };
  if (request.run !== undefined) {
    // The engine resolved what was typed in the caller's scope: a full id names it anywhere.
    const id = await resolveRun(sys, request.run, null);
    const record = await reconcile(sys, await sys.state.runs.load(id));
    const pkg = await runPackage(sys, record);
    const { who, warnings } = pick(pkg.info.implementer, false);
    // The reviewer reads the worker's own tree where it still exists (an isolate run's copy).
    const copy = record.isolation;
    const dir = copy !== undefined && copy.discarded === undefined &&
        await exists(copy.copyRoot)
      ? copy.copyRoot
      : record.repoRoot ?? record.cwd;
    return {
      run: {
        ...common,
        ...who,
        task: pkg.text,
        dir,
        ...(record.group === undefined ? {} : { group: record.group }),
      },
      review: pkg.info,
      warnings,
    };
  }
  const dir = resolve(sys.cwd(), request.dir ?? ".");
  const plan = request.plan === undefined ? undefined : await loadPlan(sys, request.plan);
  const pkg = await rangePackage(
    sys,
    dir,
    request.range!,
    plan === undefined ? undefined : {
      loaded: plan,
      text: await Deno.readTextFile(plan.path),
      notes: await readNotes(sys, plan.path),
    },
  );
  const { who, warnings } = pick(undefined, true);
  return {
    run: {
      ...common,
      ...who,
      task: pkg.text,
      dir,
      ...(plan === undefined ? {} : { group: plan.group }),
    },
    review: pkg.info,
    warnings,
  };
}
