/**
 * A debug seam for timing a run's phases: with `PITROOM_DEBUG_TIMING` set, each mark prints one
 * line on stderr, `pitroom-timing PHASE MS` (MS: milliseconds since the epoch, with a fraction,
 * comparable across processes); unset, a mark does nothing. benchmarks/phases/ reads them.
 */
import type { Sys } from "./mod.ts";

/** Marks the moment a phase ends (nothing unless `PITROOM_DEBUG_TIMING` is set). */
export function timingMark(sys: Pick<Sys, "env" | "out">, phase: string): void {
  if (!sys.env.get("PITROOM_DEBUG_TIMING")) return;
  const ms = performance.timeOrigin + performance.now();
  sys.out.stderr(`pitroom-timing ${phase} ${ms.toFixed(1)}\n`);
}
