/**
 * The set of live runs: an empty marker file `active/<id>` from creation until the run ends (or
 * is found lost), so `status` never has to read every record in the state dir.
 */
import { join } from "node:path";
import { isRunId, type StatePaths } from "./paths.ts";

function activeDir(paths: StatePaths): string {
  return join(paths.root, "active");
}

/** Marks a run live. */
export async function markActive(paths: StatePaths, id: string): Promise<void> {
  await Deno.mkdir(activeDir(paths), { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(join(activeDir(paths), id), "");
}

/** Clears a run's live marker. */
export async function clearActive(paths: StatePaths, id: string): Promise<void> {
  try {
    await Deno.remove(join(activeDir(paths), id));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** Ids of the runs marked live, oldest first. */
export async function listActive(paths: StatePaths): Promise<string[]> {
  const ids: string[] = [];
  try {
    for await (const entry of Deno.readDir(activeDir(paths))) {
      if (isRunId(entry.name)) ids.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return ids.sort();
}
