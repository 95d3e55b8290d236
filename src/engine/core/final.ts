/**
 * How a run's worker chain ended (the run outcome): what the walk hands the lifecycle, and what
 * the workspace and the features' hooks read and amend.
 */
import type { OutcomeClass } from "../../events/mod.ts";
import type { Changes } from "../../store/record.ts";

/** How the chain ended. */
export interface Final {
  outcome: OutcomeClass;
  message?: string;
  answer?: string;
  changes?: Changes;
  /** The worker was lost (a remote host's connection dropped): the run ends `lost`. */
  lost?: boolean;
}
