/**
 * One snapshot before the worker for the read runs of a crew: runs that start together on the
 * same tree (in one process, the host) share the walk of the first instead of each walking the
 * tree again. A run joins only a snapshot still being taken whose walk began after the run was
 * asked for (its record was created), so the shared snapshot sees every change made before the
 * run's request, as its own would. The quick path, at its end, hands each run that joined its
 * own kept index to continue from (a link to, or copy of, the seed, written only when first
 * needed: quick_snapshot.ts); where it declines or fails, each run takes its own snapshot.
 *
 * A foreground read run starts its walk ahead, as soon as it is asked for, beside the work of
 * setting the run up (loading its code, writing its record, taking its slot): a lead with no run
 * of its own (`held`), which waits after its `git status` until the run joins it (then goes on)
 * or lets it go (then ends, having hashed nothing).
 */

/** What a shared snapshot gives a run that joined it. */
export interface Joined<T> {
  /** The snapshot, or null when the run must take its own. */
  result: Promise<T | null>;
}

/** A snapshot being taken that runs may still join. */
interface Taking<T> {
  /** When its walk began (the callers' clock). */
  since: number;
  /** The kept indexes of the runs that joined (their index files). */
  joined: string[];
  /** True once the walk's end handed out the kept indexes: nobody joins any more. */
  closed: boolean;
  /** Told when a run joins (a lead held open for its run). */
  onJoin?: () => void;
  result: Promise<T | null>;
}

/** Snapshots being taken, by repository root and object store. */
const taking = new Map<string, Taking<unknown>>();

/**
 * Joins the snapshot of `key` being taken when its walk began at or after `asked` (and it still
 * takes runs), naming `indexFile` as the run's kept index; null when there is none to join.
 */
export function joinSnapshot<T>(key: string, asked: number, indexFile: string): Joined<T> | null {
  const found = taking.get(key) as Taking<T> | undefined;
  if (found === undefined || found.closed || found.since < asked) return null;
  found.joined.push(indexFile);
  found.onJoin?.();
  return {
    result: found.result.then(
      (result) => result,
      () => null,
    ),
  };
}

/**
 * Takes the snapshot of `key` with `take`, which others may join until it calls `close()` (the
 * kept indexes to hand out: those of the runs that joined). With `held` (a walk started ahead of
 * its run), `wanted()` resolves true once a run joins and false once `held` resolves first (the
 * run went another way): `take` asks it before its costly part. Without, it is always true.
 */
export async function leadSnapshot<T>(
  key: string,
  since: number,
  take: (close: () => readonly string[], wanted: () => Promise<boolean>) => Promise<T | null>,
  held?: Promise<void>,
): Promise<T | null> {
  let settle!: (value: Promise<T | null>) => void;
  const entry: Taking<T> = {
    since,
    joined: [],
    closed: false,
    result: new Promise<T | null>((resolve) => (settle = resolve)),
  };
  entry.result.catch(() => undefined);
  const wanting = held === undefined ? Promise.resolve(true) : Promise.race([
    held.then(() => false),
    new Promise<boolean>((resolve) => (entry.onJoin = () => resolve(true))),
  ]);
  const close = () => {
    entry.closed = true;
    return entry.joined;
  };
  // A later snapshot of the same tree replaces an earlier one for those who come next.
  taking.set(key, entry as Taking<unknown>);
  const result = take(close, () => wanting);
  settle(result);
  try {
    const taken = await result;
    // Who joined after a walk that declined takes a snapshot of its own.
    if (taken === null) close();
    return taken;
  } finally {
    close();
    if (taking.get(key) === entry) taking.delete(key);
  }
}
