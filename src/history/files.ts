/**
 * Reading what the history keeps of a run from its folder: the record, the steps from the
 * events file (plain or compressed) and the patch.
 */
import { readEventsFile } from "../store/events_file.ts";
import type { StatePaths } from "../store/paths.ts";
import type { RunRecord } from "../store/record.ts";
import { stepsOf } from "./row.ts";
import type { RunFiles } from "./write.ts";

/** A patch larger than this is not copied into the history (the run folder keeps it). */
const PATCH_MAX = 8 * 1024 * 1024;

async function readPatch(path: string): Promise<string | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  if (info.size > PATCH_MAX) {
    return `# The patch (${info.size} bytes) was too large for the history; see ${path}\n`;
  }
  return await Deno.readTextFile(path);
}

/** What the history keeps of `record`, read from its run folder. */
export async function readRunFiles(paths: StatePaths, record: RunRecord): Promise<RunFiles> {
  const runPaths = paths.run(record.id);
  let steps: RunFiles["steps"] = [];
  try {
    steps = stepsOf(await readEventsFile(runPaths.events));
  } catch (error) {
    // A truncated .gz (a crash while compressing) fails to decompress: index the run without
    // its steps rather than not at all.
    if (!(error instanceof TypeError)) throw error;
  }
  return { record, steps, patch: await readPatch(runPaths.patch) };
}
