/**
 * Effective settings from config and environment.
 */
import type { Config } from "../store/config.ts";
import { MAX_PARALLEL_CEILING } from "../store/slots.ts";

/** The default number of workers at once. */
export const DEFAULT_MAX_PARALLEL = 20;

/** maxParallel: config, clamped to 1..30. */
export function maxParallelOf(config: Config): number {
  const wanted = config.maxParallel ?? DEFAULT_MAX_PARALLEL;
  return Math.max(1, Math.min(Math.floor(wanted), MAX_PARALLEL_CEILING));
}
