/**
 * Snapshots the whole work tree (tracked, modified and untracked-but-not-ignored files) into a
 * tree object, without touching the user's index, HEAD, refs, stash, config or object store.
 *
 * A throwaway index in Pitroom's scratch space is seeded with a copy of the user's index (same
 * modification time, so git's racy-entry check stays sound and unchanged files are not re-read),
 * `git add -A` brings it up to the work tree, `git write-tree` turns it into a tree. New blobs
 * and trees go to Pitroom's object store; the user's objects are only read, as an alternate.
 * The snapshot after a worker names the one before as its `base`: new paths the base saw as
 * ignored stay out, and with a shared `indexFile` every file of the base stays tracked.
 *
 * The snapshot before a worker first tries the quick path of quick_snapshot.ts (no second
 * index, the same result by construction where it applies) and takes this full one where it
 * declines.
 */
import { join } from "../sys/path.ts";
import { git, GitError, type GitOutput, type GitSys, nulList } from "./git.ts";
import { listChanges } from "./diff.ts";
import { headCommit, type RepoInfo } from "./repo.ts";
import { ensureStore, scratchBase, type StoreOptions, trackingEnv, withScratch } from "./store.ts";
import {
  attributesInTree,
  type ConversionConfig,
  conversionConfig,
  convertsOutsideTree,
  rawCommonDir,
  rawEnv,
  rehashConverted,
} from "./raw.ts";
import { exists, removeIfThere } from "../sys/fs.ts";
import { initialisedSubmodules, SubmodulesRefused } from "./submodules.ts";
import { quickSnapshot, settledIndex } from "./quick_snapshot.ts";
import { quickAfter } from "./quick_after.ts";
import { joinSnapshot, leadSnapshot } from "./shared_snapshot.ts";
import { seedIndex, type WalkBegun, type WalkStarted } from "./walk_start.ts";

/** The state of a work tree at one moment. Plain data: it can be kept in a run record. */
export interface Snapshot {
  /** The tree object (in Pitroom's store, or the user's) holding every file. */
  tree: string;
  /** The user's HEAD commit then, or null in a repository with no commits. */
  head: string | null;
  /**
   * Untracked directories that held no snapshot file (empty, or only ignored files), relative
   * to the root without a trailing slash. Revert keeps these when it prunes directories.
   * Recorded by a snapshot without `base` only.
   */
  bareDirs: string[];
  /**
   * What git ignored then: files, and whole directories with a trailing slash. A snapshot taken
   * with this one as `base` leaves out new paths under them, so a worker that edits
   * `.gitignore` does not make the user's ignored files (`.env`, `node_modules/`) look like its
   * own additions. Recorded by a snapshot without `base` only.
   */
  ignored: string[];
}

/** Options of `snapshot`. */
export interface SnapshotOptions extends StoreOptions {
  /**
   * Keep the throwaway index in this file (in a folder Pitroom owns, e.g. the run folder) and
   * pass the same file to the snapshot after the worker (the one with `base`): it then starts
   * from the earlier snapshot's index, which is faster (untracked files are hashed once) and keeps every file
   * of the earlier snapshot tracked even if the worker's `.gitignore` now ignores it. Without
   * it the index lives in scratch space and is seeded from the user's index each time.
   */
  indexFile?: string;
  /** The snapshot taken before the worker, when this is the one after. */
  base?: Snapshot;
  /**
   * `"refuse"`: throw `SubmodulesRefused` when the tree holds an initialised submodule or a
   * nested repository, whose files a snapshot cannot track (before a write or isolate run).
   * @default "allow"
   */
  submodules?: "allow" | "refuse";
  /**
   * `false`: HEAD is not read (one git call fewer) and `head` is the base's, or null without a
   * base. For a snapshot whose caller only wants its tree (the one after a worker).
   * @default true
   */
  readHead?: boolean;
  /**
   * `true`: where the quick path keeps `indexFile`, it is written only when first needed: by a
   * snapshot after that takes the full path (or `settledIndex`); `droppedIndex(indexFile)` leaves
   * it unwritten when it never was. Until then the snapshot after takes its own quick path
   * (quick_after.ts) where it can. Otherwise the snapshot returns with the index in place.
   * @default false
   */
  keepOnDemand?: boolean;
  /**
   * `false`: the snapshot always takes the full path (`git add -A` and `git write-tree`), never
   * the quick one of quick_snapshot.ts before a worker or of quick_after.ts after it; the tests'
   * oracle.
   * @default true
   */
  quick?: boolean;
  /**
   * Called with what git ignores (the future snapshot's `ignored`) as soon as the quick path's
   * `git status` has said it, before the rest of the snapshot is done: what depends on it only
   * (the watch of the ignored files) can start beside. Not called on the full path; the
   * snapshot's own `ignored` is the one that counts.
   */
  ignoredKnown?: (ignored: readonly string[]) => void;
  /**
   * Called by the quick path, once its snapshot is taken, with the paths of its tree that HEAD
   * may lack, as `git status` said them: the index's additions and the untracked files (a file
   * the index deleted and the tree still has among them). Not called on the full path.
   */
  addedKnown?: (paths: readonly string[]) => void;
  /**
   * The snapshot before a read run (with `indexFile` and `keepOnDemand`) may be shared with the
   * read runs of the same tree in this process (shared_snapshot.ts): it joins one being taken
   * whose walk began at or after `asked` (when the run was asked for), else takes its own, which
   * others may join. `now` is the clock `asked` was read from.
   */
  share?: { asked: number; now: () => number };
  /**
   * The clock the quick path's memo reads to tell a file changed long enough before it was read
   * for its stat data to vouch for its bytes next time (vcs/quick_memo.ts); tests move it on.
   * @default Date.now
   */
  memoClock?: () => number;
}

/** Splits `git ls-files -z --directory` output into its directory and file entries. */
export function parseLsFilesZ(stdout: string): { dirs: string[]; files: string[] } {
  const entries = stdout.split("\0").filter((entry) => entry !== "");
  return {
    dirs: entries.filter((entry) => entry.endsWith("/")).map((entry) => entry.slice(0, -1)),
    files: entries.filter((entry) => !entry.endsWith("/")),
  };
}

/**
 * The ignored files and directories from `git ls-files --others --ignored --directory`. That
 * listing names a directory that is ignored itself as one entry, but also names directories that
 * merely hold only ignored files, followed by their contents (`g/`, `g/h/`, `g/h/z.log`): a
 * directory with a listed entry inside it, or a bare directory, is not ignored itself.
 */
export function ignoredEntries(
  listed: { dirs: string[]; files: string[] },
  bareDirs: readonly string[],
): string[] {
  const bare = new Set(bareDirs);
  const all = [...listed.files, ...listed.dirs.map((dir) => `${dir}/`)].sort();
  return all.filter((entry, i) =>
    !entry.endsWith("/") ||
    (!bare.has(entry.slice(0, -1)) && !(all[i + 1]?.startsWith(entry) ?? false))
  );
}

/** True when `path` is one of `ignored`'s files or lies under one of its `dir/` entries. */
export function isUnderIgnored(path: string, ignored: readonly string[]): boolean {
  return ignored.some((entry) => entry.endsWith("/") ? path.startsWith(entry) : path === entry);
}

/** How many nested repositories without a commit one `add -A` leaves out at most. */
const UNBORN_MAX = 100;

/**
 * `git add -A`, leaving out the nested repositories that have no commit yet (`git init` in a
 * folder of the tree): git can record neither their files nor a commit of theirs, and stops at
 * the first one it meets (exit 128), so each is named and left out in turn.
 */
async function addLeavingUnborn(
  sys: GitSys,
  call: { cwd: string; env: Record<string, string> },
  unborn: string[],
): Promise<GitOutput> {
  for (;;) {
    const out = await git(sys, [
      "add",
      "-A",
      ...(unborn.length === 0
        ? []
        : ["--", ".", ...unborn.map((path) => `:(exclude,literal)${path}`)]),
    ], { ...call, okCodes: [0, 128] });
    const named = /error: '(.+)' does not have a commit checked out/.exec(out.stderr)?.[1];
    const path = named?.replace(/\/+$/, "");
    if (out.code === 0 || path === undefined || unborn.includes(path)) return out;
    if (unborn.length >= UNBORN_MAX) return out;
    unborn.push(path);
  }
}

/**
 * Brings the index at `index` up to the work tree: seeded, then `git add -A` (bytes as they
 * are). Returns true when the index was seeded from the user's, whose ids of files it trusts
 * by stat may be git's filtered form, and the nested repositories without a commit left out.
 */
async function addAll(
  sys: GitSys,
  repo: RepoInfo,
  options: {
    index: string;
    env: Record<string, string>;
    reuse: boolean;
    config: () => Promise<ConversionConfig>;
  },
): Promise<{ seeded: boolean; stderr: string; unborn: string[] }> {
  const call = { cwd: repo.root, env: options.env };
  const unborn: string[] = [];
  const kept = await exists(options.index);
  if (kept && !options.reuse) await Deno.remove(options.index);
  const reused = options.reuse && kept;
  // A sparse checkout's index holds files that are not on disk (skip-worktree): the snapshot
  // starts empty there and records what is on disk.
  const sparse = await exists(join(repo.commonDir, "info", "sparse-checkout")) &&
    (await options.config()).sparse;
  const seeded = reused || (!sparse && await seedIndex(repo.indexFile, options.index));
  if (seeded) {
    const out = await addLeavingUnborn(sys, call, unborn);
    if (out.code === 0) return { seeded: !reused, stderr: out.stderr, unborn };
    // An index git cannot take over here (a split index, say) only costs speed: start empty.
    await Deno.remove(options.index);
  }
  const out = await addLeavingUnborn(sys, call, unborn);
  if (out.code !== 0) throw new GitError(["add", "-A"], out.code, out.stderr);
  return { seeded: false, stderr: out.stderr, unborn };
}

/**
 * After `add -A` on an index seeded from the user's, the ids of converted files are made raw.
 * When only an in-tree `.gitattributes` could call for that, the check runs beside the
 * `write-tree` that follows (`found`: then `fix`, and the tree is written again), so a
 * repository without attributes pays nothing on the critical path.
 */
async function rawIds(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { index: string; env: Record<string, string> },
  config: Promise<ConversionConfig>,
): Promise<{ found: Promise<boolean>; fix: () => Promise<void> } | null> {
  const settings = await config;
  const fix = { ...options, autocrlf: settings.autocrlf };
  if (await convertsOutsideTree(sys, repo, settings)) {
    await rehashConverted(sys, repo, fix);
    return null;
  }
  const found = attributesInTree(sys, repo, options);
  found.catch(() => undefined);
  // Re-hashing writes the index: it waits for the `write-tree` beside it (which locks it too).
  return { found, fix: () => rehashConverted(sys, repo, fix) };
}

/**
 * Takes out of the index the new paths that `base` saw as ignored. Returns the tree it wrote to
 * find them when nothing was taken out (it is the snapshot's tree then), else null.
 */
async function dropIgnoredByBase(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { env: Record<string, string>; base: Snapshot },
): Promise<string | null> {
  const call = { cwd: repo.root, env: options.env };
  const tree = (await git(sys, ["write-tree"], call)).stdout.trim();
  const changes = await listChanges(sys, repo, { ...options, before: options.base, after: tree });
  const drop = changes.filter((change) =>
    change.status === "added" && isUnderIgnored(change.path, options.base.ignored)
  ).map((change) => change.path);
  if (drop.length === 0) return tree;
  await git(sys, ["update-index", "-z", "--force-remove", "--stdin"], {
    ...call,
    stdin: nulList(drop),
  });
  return null;
}

/** `make()` called once, on first use; its rejection is marked handled (it is awaited later). */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    if (made === undefined) {
      made = make();
      made.catch(() => undefined);
    }
    return made;
  };
}

/**
 * The quick path (quick_snapshot.ts) on a seed copy of the user's index: in scratch space, or
 * next to `indexFile`, which it becomes. Null when the full path must run.
 */
async function quickBefore(
  sys: GitSys,
  repo: RepoInfo,
  options: SnapshotOptions & {
    config: () => Promise<ConversionConfig>;
    alsoKeep?: () => readonly string[];
    wanted?: () => Promise<boolean>;
    /** The walk already started over a seed in scratch space (`snapshotAhead`). */
    started?: WalkStarted;
  },
) {
  const kept = options.indexFile;
  // No scratch folder of its own: the seed lies next to the kept index, or in scratch space.
  const seed = options.started?.seed ??
    (kept === undefined
      ? join(await scratchBase(options), `seed-${crypto.randomUUID()}`)
      : `${kept}.seed`);
  try {
    if (options.started === undefined && !(await seedIndex(repo.indexFile, seed))) return null;
    const found = await quickSnapshot(sys, repo, { ...options, seed });
    if (found === null || kept === undefined) await removeIfThere(seed);
    return found;
  } catch (error) {
    await removeIfThere(seed);
    throw error;
  }
}

/**
 * The quick path shared by the read runs of one tree (shared_snapshot.ts): the one being taken
 * joined, or one taken here that others may join. Null when the full path must run.
 */
async function sharedBefore(
  sys: GitSys,
  repo: RepoInfo,
  options: SnapshotOptions & {
    share: NonNullable<SnapshotOptions["share"]>;
    config: () => Promise<ConversionConfig>;
    heading: () => Promise<string | null>;
  },
): Promise<Snapshot | null> {
  const key = walkKey(repo, options);
  const copied = (s: Taken): Snapshot => ({
    tree: s.tree,
    head: s.head,
    bareDirs: [...s.bareDirs],
    ignored: [...s.ignored],
  });
  const joined = joinSnapshot<Taken>(key, options.share.asked, options.indexFile!);
  if (joined !== null) {
    const got = await joined.result;
    if (got !== null) {
      // What the lead's walk was told, this run is told too.
      options.ignoredKnown?.([...got.ignored]);
      options.addedKnown?.([...got.added]);
      return copied(got);
    }
  }
  const taken = await leadWalk(sys, repo, { ...options, since: options.share.now() });
  return taken === null ? null : copied(taken);
}

/** The key of the walks of `repo` runs may share: its root and Pitroom's store. */
function walkKey(repo: RepoInfo, options: StoreOptions): string {
  return `${repo.root}\0${options.objectsDir}`;
}

/** A shared walk's snapshot, with the paths HEAD may lack (`SnapshotOptions.addedKnown`). */
type Taken = Snapshot & { added: string[] };

/** Leads a shared walk that began at `since` (see `leadSnapshot` for `held`). */
function leadWalk(
  sys: GitSys,
  repo: RepoInfo,
  options: SnapshotOptions & {
    since: number;
    config: () => Promise<ConversionConfig>;
    heading: () => Promise<string | null>;
    started?: WalkStarted;
  },
  held?: Promise<void>,
): Promise<Taken | null> {
  return leadSnapshot<Taken>(walkKey(repo, options), options.since, async (close, wanted) => {
    const quick = await quickBefore(sys, repo, {
      ...options,
      alsoKeep: close,
      wanted,
    });
    return quick === null
      ? null
      : { ...quick, head: quick.head !== undefined ? quick.head : await options.heading() };
  }, held);
}

/** A walk started ahead of the read run it is for (`snapshotAhead`). */
export interface WalkAhead {
  /** Lets the walk go: its run will not join it (it waited for a slot, or was refused). */
  release(): void;
  /** Resolves once the walk is over (its seed gone), whatever became of it. */
  done: Promise<void>;
}

/**
 * Takes the snapshot before a read run ahead of the run, from a walk `started` before `since` was
 * read (over a seed in the scratch space of the store, which the caller made; the seed goes with
 * the walk). The run, asked for at or before `since`, joins it through `share` once it takes its
 * snapshot (shared_snapshot.ts). After its `git status` the walk waits until the run joins (then
 * it goes on, and hands the run its kept index) or `release()` is called (then it ends, having
 * hashed nothing); what fails here, the run's own snapshot finds again.
 */
export function snapshotAhead(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { since: number; started: WalkBegun },
): WalkAhead {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const heading = () => options.started.head;
  const config = () => options.started.config;
  const done = leadWalk(sys, repo, { ...options, config, heading }, held)
    .then(() => undefined, () => undefined);
  return { release, done };
}

/** Records the whole work tree of `repo` as a tree object in Pitroom's store. */
export async function snapshot(
  sys: GitSys,
  repo: RepoInfo,
  options: SnapshotOptions,
): Promise<Snapshot> {
  // Independent git calls run side by side: a snapshot sits on every run's critical path.
  // Each starts when first asked for (the quick path starts `git status` first).
  const heading = once(() =>
    options.readHead === false ? Promise.resolve(options.base?.head ?? null) : headCommit(sys, repo)
  );
  const config = once(() => conversionConfig(sys, repo, options));
  const base = options.base;
  // First, before anything is awaited: its `git status` starts at once (quick_after.ts).
  if (base !== undefined && options.indexFile !== undefined && options.quick !== false) {
    const tree = await quickAfter(sys, repo, {
      ...options,
      indexFile: options.indexFile,
      before: base.tree,
      ignoredBefore: (path) => isUnderIgnored(path, base.ignored),
      config,
    });
    if (tree !== null) return { tree, head: await heading(), bareDirs: [], ignored: [] };
  }
  await ensureStore(options);
  // The kept index, when the quick path before left it to be written when asked for.
  if (options.indexFile !== undefined) await settledIndex(options.indexFile);
  if (options.base === undefined && options.quick !== false) {
    const share = options.indexFile !== undefined && options.keepOnDemand === true &&
        options.readHead !== false
      ? options.share
      : undefined;
    if (share === undefined) {
      const quick = await quickBefore(sys, repo, { ...options, config });
      if (quick !== null) {
        const { tree, bareDirs, ignored } = quick;
        return {
          tree,
          head: quick.head !== undefined ? quick.head : await heading(),
          bareDirs,
          ignored,
        };
      }
    } else {
      const shared = await sharedBefore(sys, repo, { ...options, share, config, heading });
      if (shared !== null) return shared;
    }
  }
  return await withScratch(options, async (dir) => {
    heading();
    // Read beside `add -A` when the index will be seeded from the user's (the snapshot before).
    if (base === undefined) config();
    const index = options.indexFile ?? join(dir, "index");
    const overlay = rawCommonDir(repo, dir);
    overlay.catch(() => undefined);
    const listed = ["ls-files", "-z", "--others", "--directory", "--exclude-standard"];
    // The ignored listing does not depend on the untracked files `add -A` brings in, so the
    // snapshot before a worker reads it from the user's index (read-only: optional locks are
    // off) side by side with `add -A`.
    const ignoring = base === undefined
      ? git(sys, [...listed, "--ignored"], { cwd: repo.root, env: trackingEnv(repo, options) })
      : null;
    ignoring?.catch(() => undefined);
    const env = { ...rawEnv(repo, options, await overlay), GIT_INDEX_FILE: index };
    const call = { cwd: repo.root, env };
    // Only the snapshot after continues from a kept index; the one before starts afresh.
    const reuse = base !== undefined;
    const added = await addAll(sys, repo, { index, env, reuse, config });
    const fixing = added.seeded
      ? await rawIds(sys, repo, { ...options, index, env }, config())
      : null;
    if (options.submodules === "refuse") {
      const found = [
        ...await initialisedSubmodules(sys, repo, { env, addStderr: added.stderr }),
        ...added.unborn,
      ];
      if (found.length > 0) throw new SubmodulesRefused(found);
    }
    // The tree written to find what to drop is the snapshot's when nothing was dropped.
    const written = base !== undefined && base.ignored.length > 0
      ? await dropIgnoredByBase(sys, repo, { ...options, env, base })
      : null;
    const writeTree = () => git(sys, ["write-tree"], call).then((out) => out.stdout.trim());
    const first = written === null ? writeTree() : Promise.resolve(written);
    first.catch(() => undefined);
    const writing = fixing === null ? first : first.then(async (tree) => {
      if (!(await fixing.found)) return tree;
      await fixing.fix();
      return await writeTree();
    });
    if (base !== undefined) {
      const [tree, head] = await Promise.all([writing, heading()]);
      return { tree, head, bareDirs: [], ignored: [] };
    }
    const [tree, head, others, ignoredOut] = await Promise.all([
      writing,
      heading(),
      git(sys, listed, call),
      ignoring!,
    ]);
    const bare = parseLsFilesZ(others.stdout).dirs;
    const ignored = ignoredEntries(parseLsFilesZ(ignoredOut.stdout), bare);
    return { tree, head, bareDirs: bare, ignored };
  });
}
