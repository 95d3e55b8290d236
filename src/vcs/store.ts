/**
 * Pitroom's own object store for one repository, and the scratch space for throwaway indexes.
 * Every git call that reads or writes snapshot objects gets `trackingEnv`: the user's git dir
 * and work tree, Pitroom's object directory for writes, and the user's objects as a read-only
 * alternate. Nothing is ever written to the user's object store.
 */
import { dirname, join } from "../sys/path.ts";
import type { RepoInfo } from "./repo.ts";

/** Where Pitroom keeps the objects of one repository. */
export interface StoreOptions {
  /** Pitroom's object directory for this repository (`<stateDir>/repos/<key>/objects`). */
  objectsDir: string;
  /**
   * Where throwaway indexes and checkouts live while an operation runs.
   * @default "tmp" next to `objectsDir`
   */
  scratchDir?: string;
}

/**
 * Quotes one entry of `GIT_ALTERNATE_OBJECT_DIRECTORIES` (or a line of `objects/info/alternates`)
 * C-style when it holds a separator (`:`, a line break) or starts with a quote; git unquotes it.
 */
export function quoteAlternate(path: string): string {
  if (!/[:\n\r]/.test(path) && !path.startsWith('"')) return path;
  const escaped = path.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r");
  return `"${escaped}"`;
}

/** The environment that points git at the user's repository but at Pitroom's object store. */
export function trackingEnv(repo: RepoInfo, store: StoreOptions): Record<string, string> {
  return {
    GIT_DIR: repo.gitDir,
    GIT_WORK_TREE: repo.root,
    GIT_OBJECT_DIRECTORY: store.objectsDir,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: quoteAlternate(repo.objectsDir),
  };
}

/** Creates the object store (owner-only) if it does not exist yet. */
export async function ensureStore(store: StoreOptions): Promise<void> {
  await Deno.mkdir(store.objectsDir, { recursive: true, mode: 0o700 });
}

/**
 * Scratch entries (a seed index, a `vcs-*` folder) live while one operation runs, seconds to
 * minutes; one this much older (by its change time: a seed keeps the user's index's mtime) was
 * left by a process killed mid-operation.
 */
export const SCRATCH_STALE_MS = 6 * 60 * 60 * 1000;

/** The scratch folders this process has swept of a dead process's leftovers. */
const swept = new Set<string>();

/** The folder scratch space lives in (owner-only), made if it is not there yet. */
export async function scratchBase(store: StoreOptions): Promise<string> {
  const base = store.scratchDir ?? join(dirname(store.objectsDir), "tmp");
  await Deno.mkdir(base, { recursive: true, mode: 0o700 });
  if (!swept.has(base)) {
    // Once a process (a look at a folder that is empty but for a killed process's leftovers).
    swept.add(base);
    await sweepScratch(base, Date.now()).catch(() => undefined);
  }
  return base;
}

/**
 * Removes the entries of the scratch folder `base` whose change time is `SCRATCH_STALE_MS` before
 * `now` or older; returns their names. An entry another process removes meanwhile is skipped.
 */
export async function sweepScratch(base: string, now: number): Promise<string[]> {
  const removed: string[] = [];
  for await (const entry of Deno.readDir(base)) {
    const path = join(base, entry.name);
    try {
      const changed = (await Deno.lstat(path)).ctime?.getTime();
      if (changed === undefined || now - changed < SCRATCH_STALE_MS) continue;
      await Deno.remove(path, { recursive: true });
      removed.push(entry.name);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return removed;
}

/** Runs `fn` with a fresh private scratch directory, removed afterwards whatever happens. */
export async function withScratch<T>(
  store: StoreOptions,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  const base = await scratchBase(store);
  const dir = await Deno.makeTempDir({ dir: base, prefix: "vcs-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
