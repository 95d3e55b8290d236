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
import type { TreeWatch } from "../tree/tree_watch.ts";

/** A walk started ahead of its run. */
export interface Ahead {
  /** The folder the run was asked to work in (the run uses `tree` only when it is its own). */
  dir: string;
  /** The repository of `dir` (null: none), as the run's lifecycle would open it. */
  tree: Promise<TrackedTree | null>;
  /** Lets the walk go (the run waited for a slot, or ended without joining it). */
  release(): void;
  /**
   * Resolves once the walk is over and its seed gone, whatever became of it (a write run's once it
   * was let go, its watch ended unless the run took it).
   */
  done: Promise<void>;
  /**
   * A write run's watch of its tree, started before the walk (null: none could start); taking it
   * makes it the run's (`release` then leaves it running).
   */
  watch?: () => Promise<TreeWatch | null>;
}

/**
 * Starts the walk for `request` when it is a read run that works on this machine in a folder of
 * its own (not a follow-up, a plan step or a crew), and resolves once git walks: the caller waits
 * (a few ms) rather than load the run's code meanwhile, which would hold up each step here. The
 * caller reads when the run was asked for (its record's `createdAt`: a snapshot it joins must
 * have begun after it) before this. Never throws: a walk that cannot start is the run's own
 * snapshot's to take. A write run's walk begins once the watch of its tree is in place
 * (`writeAhead`), and its repository, found once, serves its checks and its lifecycle too.
 */
export async function walkAhead(sys: HeldSys, request: RunRequest): Promise<Ahead | undefined> {
  const mode = request.mode ?? "read";
  if (mode !== "read" && mode !== "write") return undefined;
  if (request.continue !== undefined || request.host !== undefined) return undefined;
  if (request.plan !== undefined || (request.tasks?.length ?? 0) > 1) return undefined;
  const dir = resolve(sys.cwd(), request.dir ?? ".");
  if (mode === "write") return await writeAhead(sys, dir);
  const repo = await findRepo(sys, dir).catch(() => null);
  if (repo === null) return undefined;
  const begun = await begin(sys, repo).catch(() => null);
  const walking = walked(sys, repo, begun);
  return { dir, tree: opened(sys, repo), release: walking.release, done: walking.done };
}

/**
 * A write run's start: its repository found (for its checks too; a failure to ask git is theirs
 * to report), then the watch of its tree, then the walk, begun once the watch is in place, which
 * the run's snapshot joins; resolves once git walks, as a read run's. A watch its run does not
 * take (refused, or waiting for a slot) ends once the run lets it go.
 */
async function writeAhead(sys: HeldSys, dir: string): Promise<Ahead> {
  const found = findRepo(sys, dir);
  const tree = found.then((repo) => repo === null ? null : opened(sys, repo));
  tree.catch(() => undefined);
  let released = false;
  let taken = false;
  let letGo!: () => void;
  const gone = new Promise<void>((resolve) => (letGo = resolve));
  const watching = tree.then(async (opened) => {
    if (opened === null || released) return null;
    return await opened.startWatch(undefined, sys.clock);
  }).catch(() => null);
  let walking: ReturnType<typeof walked> | undefined;
  const started = watching.then(async (watch) => {
    const repo = await found.catch(() => null);
    if (watch === null || repo === null || released) return;
    walking = walked(sys, repo, await begin(sys, repo).catch(() => null));
    if (released) walking.release();
  });
  await started;
  await walking?.registered;
  return {
    dir,
    tree,
    watch() {
      // Let go (the run waited for a slot): the run watches from its own start.
      if (released) return Promise.resolve(null);
      taken = true;
      // Once the walk is there to join (or none will be).
      return started.then(() => walking?.registered).then(() => watching);
    },
    release() {
      released = true;
      walking?.release();
      letGo();
    },
    // The watch is the run's once taken; else it ends once the run lets it go.
    done: (async () => {
      await started;
      await gone;
      await walking?.done;
      if (!taken) await (await watching)?.close();
    })(),
  };
}

/**
 * The walk over a seed `begun` (null: none), held for its run until it joins or lets it go;
 * `registered` resolves once a snapshot can join it (or none will).
 */
function walked(sys: HeldSys, repo: RepoInfo, begun: Awaited<ReturnType<typeof begin>> | null) {
  let released = false;
  let walk: WalkAhead | undefined;
  let registered!: () => void;
  const joinable = new Promise<void>((resolve) => (registered = resolve));
  const done = begun === null ? Promise.resolve() : (async () => {
    try {
      const { snapshotAhead } = await import("../../vcs/snapshot.ts");
      walk = snapshotAhead(sys, repo, { ...begun.store, since: begun.since, started: begun });
    } catch {
      await begun.status.catch(() => undefined);
      await removeIfThere(begun.seed).catch(() => undefined);
      return;
    } finally {
      registered();
    }
    if (released) walk.release();
    await walk.done;
  })();
  if (begun === null) registered();
  return {
    release() {
      released = true;
      walk?.release();
    },
    registered: joinable,
    done,
  };
}

/** The tracked tree of `repo`, as the run's lifecycle would open it. */
function opened(sys: HeldSys, repo: RepoInfo): Promise<TrackedTree | null> {
  const tree = import("../tree/tree.ts").then((mod) => mod.openTree(sys, sys.state.paths, repo));
  tree.catch(() => undefined);
  return tree;
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
