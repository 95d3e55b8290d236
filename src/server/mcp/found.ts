/**
 * A run as the MCP server finds it: in its folder, or, once `pitroom clean` removed the folder,
 * as the history keeps it (its record, steps and patch), the way `pitroom show` falls back.
 */
import type { Engine, KeptRun, RunReport } from "../../engine/mod.ts";
import { RefusedError, UsageError } from "../../sys/errors.ts";

/** A found run; `kept` is set when it came from the history. */
export interface FoundRun {
  report: RunReport;
  kept: KeptRun | null;
}

/** The run `typed` names (an id, a unique part, `last`); the engine's error when none. */
export async function findRun(engine: Engine, typed: string): Promise<FoundRun> {
  try {
    return { report: await engine.report(typed), kept: null };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const kept = await engine.history.kept(typed);
    if (kept === null) throw error;
    return { report: kept.record, kept };
  }
}

/** The exact diff the run made; refused (`no_patch`) when it changed no files. */
export async function patchOf(engine: Engine, found: FoundRun): Promise<string> {
  if (found.kept === null) return await engine.patch(found.report.id);
  if (found.kept.patch === null) {
    throw new RefusedError("no_patch", `Run "${found.report.id}" changed no files`);
  }
  return found.kept.patch;
}
