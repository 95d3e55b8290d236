/**
 * One write run per repository: its writer lock (a kernel flock in the state dir) and the
 * refusal a second write run gets, checked before a run is created (so a refusal makes no run)
 * and again when a queued write run starts.
 */
import type { HeldSys } from "../../store/state.ts";
import { type HeldLock, isLocked, tryLockSoon } from "../../store/locks.ts";
import { writeTextAtomic } from "../../sys/atomic.ts";
import type { StatePaths } from "../../store/paths.ts";
import { RefusedError } from "../../sys/errors.ts";
import { type TrackedTree, trackTree } from "./tree.ts";

/** The refusal of a write run while run `holder` ("" when unknown) writes in `root`. */
export function writerBusyMessage(root: string, holder: string): string {
  return `Another write run${
    holder ? ` (${holder})` : ""
  } is working in "${root}": wait for it to finish (\`pitroom wait ${holder || "RUN"}\`)`;
}

/**
 * Refuses (before any record exists) a write run in `cwd` while another one writes there; `known`:
 * its tree, when it was opened already (engine/run/ahead.ts).
 */
export async function refuseBusyWriter(
  sys: HeldSys,
  paths: StatePaths,
  cwd: string,
  known?: { dir: string; tree: Promise<TrackedTree | null> },
): Promise<void> {
  const tree = known?.dir === cwd ? await known.tree : await trackTree(sys, paths, cwd);
  if (tree === null) return;
  const repoPaths = paths.repo(tree.key);
  if (!(await isLocked(repoPaths.writerLock))) return;
  const holder = await Deno.readTextFile(repoPaths.writer).then((t) => t.trim(), (error) => {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  });
  throw new RefusedError("writer_busy", writerBusyMessage(tree.root, holder));
}

/**
 * Takes the writer lock of `tree`'s repository for `what` ("revert RUN", named to whoever is
 * refused meanwhile): no write run works, and no apply or revert of another run writes, while it
 * is held. Refused, naming the holder, when somebody holds it.
 */
export async function holdWriter(
  sys: HeldSys,
  paths: StatePaths,
  tree: TrackedTree,
  what: string,
  hint: string,
): Promise<HeldLock> {
  const repoPaths = paths.repo(tree.key);
  const writer = await tryLockSoon(repoPaths.writerLock, { clock: sys.clock });
  if (writer === null) {
    const holder = await Deno.readTextFile(repoPaths.writer).catch(() => "");
    throw new RefusedError(
      "repo_busy",
      `Another run (${holder.trim() || "unknown"}) is writing in "${tree.root}"`,
      { hint },
    );
  }
  await writeTextAtomic(repoPaths.writer, what);
  return writer;
}
