/**
 * The snapshot walk of a foreground read run, started as soon as the run is asked for: its
 * `git status` walks the tree beside the ~60 ms of setting the run up (loading its code, building
 * and writing its record, taking its slot), where it would otherwise start after all of them.
 * Only what starts the walk is loaded first (vcs/walk_start.ts); the rest of the snapshot's code
 * loads while git walks. The run's snapshot joins the walk (vcs/shared_snapshot.ts), since it
 * began after the run was asked for; a run that waits for a slot lets it go and takes its own
 * once it starts, so its snapshot is never older than its wait.
 */
import type { HeldSys } from "../../store/state.ts";
import type { RunRequest } from "../request/request.ts";
import { join, resolve } from "../../sys/path.ts";
import { removeIfThere } from "../../sys/fs.ts";
import { findRepo, type RepoInfo, repoKey } from "../../vcs/repo.ts";
import { ensureStore, scratchBase } from "../../vcs/store.ts";
import { seedIndex, startWalk } from "../../vcs/walk_start.ts";
import type { WalkAhead } from "../../vcs/snapshot.ts";
import type { TrackedTree } from "../tree/tree.ts";

/** A walk started ahead of its run. */
export interface Ahead {
  /** The folder the run was asked to work in (the run uses `tree` only when it is its own). */
  dir: string;
  /** The repository of `dir` (null: none), as the run's lifecycle would open it. */
  tree: Promise<TrackedTree | null>;
  /** Lets the walk go (the run waited for a slot, or ended without joining it). */
  release(): void;
  /** Resolves once the walk is over and its seed gone, whatever became of it. */
  done: Promise<void>;
}

/**
 * Starts the walk for `request` when it is a read run that works on this machine in a folder of
 * its own (not a follow-up, a plan step or a crew), and resolves once git walks: the caller waits
 * (a few ms) rather than load the run's code meanwhile, which would hold up each step here. The
 * caller reads when the run was asked for (its record's `createdAt`: a snapshot it joins must
 * have begun after it) before this. Never throws: a walk that cannot start is the run's own
 * snapshot's to take.
 */
export async function walkAhead(sys: HeldSys, request: RunRequest): Promise<Ahead | undefined> {
  if ((request.mode ?? "read") !== "read") return undefined;
  if (request.continue !== undefined || request.host !== undefined) return undefined;
  if (request.plan !== undefined || (request.tasks?.length ?? 0) > 1) return undefined;
  const dir = resolve(sys.cwd(), request.dir ?? ".");
  const repo = await findRepo(sys, dir).catch(() => null);
  if (repo === null) return undefined;
  const begun = await begin(sys, repo).catch(() => null);
  let released = false;
  let walk: WalkAhead | undefined;
  const done = begun === null ? Promise.resolve() : (async () => {
    try {
      const { snapshotAhead } = await import("../../vcs/snapshot.ts");
      walk = snapshotAhead(sys, repo, { ...begun.store, since: begun.since, started: begun });
    } catch {
      await begun.status.catch(() => undefined);
      await removeIfThere(begun.seed).catch(() => undefined);
      return;
    }
    if (released) walk.release();
    await walk.done;
  })();
  const tree = import("../tree/tree.ts").then((mod) => mod.openTree(sys, sys.state.paths, repo));
  tree.catch(() => undefined);
  return {
    dir,
    tree,
    release() {
      released = true;
      walk?.release();
    },
    done,
  };
}

/** Copies the seed into scratch space and starts `git status` over it; null: no index to seed. */
async function begin(sys: HeldSys, repo: RepoInfo) {
  const store = { objectsDir: sys.state.paths.repo(await repoKey(repo.root)).objects };
  await ensureStore(store);
  const seed = join(await scratchBase(store), `seed-${crypto.randomUUID()}`);
  try {
    if (!(await seedIndex(repo.indexFile, seed))) return null;
  } catch (error) {
    await removeIfThere(seed);
    throw error;
  }
  const since = sys.clock.now();
  return { store, since, ...startWalk(sys, repo, { ...store, seed }) };
}
