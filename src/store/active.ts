/**
 * Markers that spare `status` from reading the whole state dir: `active/<id>` marks a live run
 * from creation until it ends (or is found lost), and `recent/<id>` the newest runs created.
 */
import { join } from "../sys/path.ts";
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

/** How many of the newest run ids `recent/` keeps. */
export const RECENT_KEEP = 64;

function recentDir(paths: StatePaths): string {
  return join(paths.root, "recent");
}

/**
 * Remembers a new run among the newest ones (`recent/<id>`, trimmed to `RECENT_KEEP`), so that
 * `status` and `ls` find the latest runs without listing every run folder.
 */
export async function markRecent(paths: StatePaths, id: string): Promise<void> {
  const dir = recentDir(paths);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(join(dir, id), "");
  const ids = await listMarkers(dir);
  for (const old of ids.slice(0, Math.max(0, ids.length - RECENT_KEEP))) {
    await Deno.remove(join(dir, old)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
}

/** The newest run ids (oldest first), or null when the state dir predates `recent/`. */
export async function listRecent(paths: StatePaths): Promise<string[] | null> {
  try {
    return await listMarkers(recentDir(paths));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

async function listMarkers(dir: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of Deno.readDir(dir)) if (isRunId(entry.name)) ids.push(entry.name);
  return ids.sort();
}
