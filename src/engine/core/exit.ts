/**
 * How a run's outcome maps to its state and the exit code `run` and `wait` end with.
 */
import type { OutcomeClass, RunState } from "../../events/mod.ts";
import { Exit } from "../../sys/errors.ts";

/** The exit code of an outcome. */
export function exitFor(outcome: OutcomeClass): number {
  switch (outcome) {
    case "ok":
      return Exit.ok;
    case "timeout":
      return Exit.timeout;
    case "read_only_violation":
      return Exit.readOnlyViolation;
    case "verify_failed":
      return Exit.verifyFailed;
    case "refused":
      return Exit.refused;
    default:
      return Exit.workerFailed;
  }
}

/** The final state of an outcome. */
export function stateFor(outcome: OutcomeClass): RunState {
  return outcome === "ok" ? "done" : "problem";
}

/** Outcomes that move a run to the next target of its chain. */
export const FALLBACK_CLASSES: ReadonlySet<OutcomeClass> = new Set([
  "model_not_found",
  "rate_limited",
  "quota",
  "auth",
]);
