/**
 * Classifies an ended Kilo attempt (pure) the way OpenCode's are: the same error events, exit
 * codes and retries, with Kilo's name in the messages.
 */
import type { WorkerEvent } from "../../events/mod.ts";
import { classifyFlavour } from "../opencode/classify.ts";
import { KILO } from "../opencode/flavour.ts";
import type { Outcome, ProcessEnd } from "../types.ts";

/** Classifies an ended Kilo attempt. */
export function classifyKilo(end: ProcessEnd, events: readonly WorkerEvent[]): Outcome {
  return classifyFlavour(end, events, KILO);
}
