/**
 * The quick path of the snapshot before a worker: the same `Snapshot` as `git add -A` plus
 * `git write-tree` on a copy of the user's index would give, without writing a second index.
 *
 * One `git status` walk names what differs from the index (modified, deleted, untracked and
 * ignored paths). Only the changed and new files are hashed into Pitroom's store, and only the
 * folders that hold them get new trees (`tree_write.ts`); every other folder keeps the id the
 * index's cache tree holds. The untracked folders that hold no file (`bareDirs`) are found by
 * the folders' link counts, without a second walk (`bare_dirs.ts`).
 *
 * It is taken only where it is the same as the full path by construction: no conversion of
 * bytes anywhere (no attributes file, no `core.autocrlf`), no sparse checkout, no submodule or
 * nested repository, no conflict, no symbolic link among the changed files, plain settings,
 * and an index `parseIndex` reads whole. Anywhere else (and on any surprise) it returns null and
 * the caller takes the full path, which stays the oracle of tests/vcs/quick_snapshot_test.ts.
 *
 * The kept index the snapshot after the worker continues from (the user's index with the changed
 * files added again) is written when first asked for (`settledIndex`), else never: until then
 * its seed and what this snapshot found (`quickBasis`) let the snapshot after take a quick path
 * of its own (quick_after.ts).
 */
import { join } from "../sys/path.ts";
import { lstatOrNull, removeIfThere } from "../sys/fs.ts";
import { git, type GitSys, nulList } from "./git.ts";
import { bareByLinks, bareFromListing } from "./bare_dirs.ts";
import { type ParsedIndex, parseIndex } from "./index_file.ts";
import { filesOfIndex, rememberFiles } from "./tree_files.ts";
import { representable } from "./lossless.ts";
import {
  type FileStat,
  indexChecksum,
  memoHolds,
  type QuickMemo,
  readMemo,
  settled,
  statOf,
  writeMemo,
} from "./quick_memo.ts";
import {
  type ConversionConfig,
  convertsOutsideTree,
  hashRaw,
  indexMayNameAttributes,
} from "./raw.ts";
import type { RepoInfo } from "./repo.ts";
import { startStatus, statusHead, type WalkStarted } from "./walk_start.ts";
import { type StoreOptions, trackingEnv } from "./store.ts";
import {
  buildTrees,
  type FileState,
  LooseWriter,
  type ObjectCodec,
  objectCodec,
  writeTrees,
} from "./tree_write.ts";

/** What the quick path gives: the snapshot's fields but `head`. */
export interface QuickResult {
  tree: string;
  bareDirs: string[];
  ignored: string[];
  /** `SnapshotOptions.addedKnown`'s paths, for the runs that share the snapshot. */
  added: string[];
  /** HEAD's commit as `git status` said it (null: no commit yet), when it did. */
  head?: string | null;
}

/**
 * What the snapshot after a worker needs of a quick one before it (quick_after.ts): the seed (the
 * user's index as the walk read it), what the walk found against it, and the files it read.
 */
export interface QuickBasis {
  /** The seed: the user's index as the snapshot before read it. */
  seed: string;
  /** The snapshot's tree. */
  tree: string;
  /** The untracked files it took in. */
  untracked: readonly string[];
  /** The files of the seed it found deleted. */
  deleted: readonly string[];
  /** Every file it found changed, new or deleted, as it found it. */
  states: ReadonlyMap<string, FileState>;
  /**
   * Files it read whose stat then vouches for their bytes (changed long enough before): the stat
   * and what the file was.
   */
  known: ReadonlyMap<string, { stat: FileStat; state: NonNullable<FileState> }>;
}

/** The bases of the kept indexes not written yet, by the kept index's path. */
const bases = new Map<string, QuickBasis>();

/** The basis for the kept index at `path`, while it is not written (nor dropped). */
export function quickBasis(path: string): QuickBasis | undefined {
  return bases.get(path);
}

/** A kept index not yet in place: being written, or to be written when first needed. */
interface Keeping {
  /** Writes it (once) and waits until it is in place. */
  settle(): Promise<void>;
  /** Leaves it unwritten when it was not started, else waits for it. */
  drop(): Promise<void>;
}

/** Kept indexes not yet in place, by path. */
const pending = new Map<string, Keeping>();

/** Waits until the kept index at `path` (if one is due) is in place, writing it if it waits. */
export async function settledIndex(path: string): Promise<void> {
  await pending.get(path)?.settle();
}

/**
 * Done with the kept index at `path`: one never asked for is not written (its seed is removed),
 * one being written is waited for.
 */
export async function droppedIndex(path: string): Promise<void> {
  await pending.get(path)?.drop();
}

/** Why the quick path was not taken; thrown inside, turned into null at the edge. */
export const not = (why: string): never => {
  throw new Error(`not quick: ${why}`);
};

/** What `git status --porcelain=v2 -z -uall --ignored=matching` said. */
interface StatusSaid {
  /** Tracked files that differ from the index: the worktree mode, or null when deleted. */
  changed: Map<string, string | null>;
  untracked: string[];
  ignored: string[];
  /** Files the index has and HEAD has not (staged additions). */
  added: string[];
}

/** Parses status v2 output; anything the quick path does not handle throws. */
export function parseStatusV2(stdout: string): StatusSaid {
  const said: StatusSaid = { changed: new Map(), untracked: [], ignored: [], added: [] };
  for (const record of stdout.split("\0")) {
    if (record === "") continue;
    const kind = record[0];
    // The branch's header (`--branch`): HEAD, read by `statusHead`.
    if (kind === "#") continue;
    if (kind === "?") {
      const path = record.slice(2);
      if (path.endsWith("/")) not("a nested repository");
      said.untracked.push(path);
    } else if (kind === "!") {
      said.ignored.push(record.slice(2));
    } else if (kind === "1") {
      // 1 XY sub mH mI mW hH hI path
      let at = 0;
      const fields: string[] = [];
      for (let n = 0; n < 8; n++) {
        const space = record.indexOf(" ", at);
        if (space < 0) not("a torn status line");
        fields.push(record.slice(at, space));
        at = space + 1;
      }
      const [, xy, sub, , , worktreeMode] = fields as [
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      if (sub !== "N...") not("a submodule");
      const path = record.slice(at);
      if (xy[0] === "A") said.added.push(path);
      const y = xy[1];
      if (y === ".") continue;
      if (y === "D") said.changed.set(path, null);
      else if (y === "M" && (worktreeMode === "100644" || worktreeMode === "100755")) {
        said.changed.set(path, worktreeMode);
      } else not(`a change git shows as "${xy}" (${worktreeMode})`);
    } else {
      not(`a status record "${kind}"`);
    }
  }
  return said;
}

const ATTRIBUTES = new TextEncoder().encode("/.gitattributes");

/**
 * True when an entry of `index` is a `.gitattributes` file (for version 4, whose paths are not
 * spelt out whole in the file's bytes).
 */
function holdsAttributes(index: ParsedIndex): boolean {
  const name = ATTRIBUTES.length - 1;
  for (let n = 0; n < index.count; n++) {
    const end = index.pathAt[n]! + index.pathLength[n]!;
    const length = index.pathLength[n]! === name ? name : ATTRIBUTES.length;
    if (index.pathLength[n]! < name) continue;
    let same = true;
    for (let i = 1; i <= length && same; i++) {
      same = index.paths[end - i] === ATTRIBUTES[ATTRIBUTES.length - i];
    }
    if (same) return true;
  }
  return false;
}

/** The mode git would give the untracked regular file `path`; symbolic links are not quick. */
export function untrackedMode(root: string, path: string): string {
  if (!representable(path)) not("a file name Deno cannot be given");
  let info: Deno.FileInfo | null = null;
  try {
    info = Deno.lstatSync(join(root, path));
  } catch {
    not("an untracked file gone");
  }
  if (!info!.isFile) not("an untracked symbolic link or special file");
  return ((info!.mode ?? 0) & 0o100) === 0 ? "100644" : "100755";
}

/** Files up to this size are read and hashed here; larger ones by `git hash-object`. */
const READ_MAX = 1024 * 1024;
/**
 * How much is read here at most (the reads are synchronous: a tree with thousands of new files
 * must not hold up the process that supervises the other runs); the rest goes to git.
 */
const READ_BUDGET = { files: 1000, bytes: 16 * 1024 * 1024 };

/**
 * The blob ids of the files at `paths` (regular files, no conversion: the quick path's
 * condition), each written to Pitroom's store: small ones read and hashed here up to a budget,
 * the rest (and names Deno cannot be given) by one `git hash-object`.
 */
export async function hashFiles(
  sys: GitSys,
  repo: RepoInfo,
  store: StoreOptions & { writer: LooseWriter; codec: ObjectCodec },
  paths: readonly string[],
): Promise<Map<string, string>> {
  const { writer, codec } = store;
  const ids = new Map<string, string>();
  const rest: string[] = [];
  let files = 0;
  let bytesRead = 0;
  for (const path of paths) {
    if (!representable(path) || files >= READ_BUDGET.files || bytesRead >= READ_BUDGET.bytes) {
      rest.push(path);
      continue;
    }
    // Synchronous: a few hundred small reads cost less than as many trips to Deno's thread pool.
    const file = join(repo.root, path);
    const info = Deno.lstatSync(file);
    if (!info.isFile || info.size > READ_MAX) {
      rest.push(path);
      continue;
    }
    const bytes = Deno.readFileSync(file);
    files += 1;
    bytesRead += bytes.length;
    const header = `blob ${bytes.length}\0`;
    const object = new Uint8Array(header.length + bytes.length);
    for (let i = 0; i < header.length; i++) object[i] = header.charCodeAt(i);
    object.set(bytes, header.length);
    const id = codec.id(object);
    ids.set(path, id);
    writer.write(id, object);
  }
  for (const [path, id] of await hashRaw(sys, repo, { ...store, paths: rest, write: true })) {
    ids.set(path, id);
  }
  return ids;
}

/** Options of `quickSnapshot`. */
export interface QuickOptions extends StoreOptions {
  /**
   * The copy of the user's index (same mtime), read by every git call here. With `indexFile`
   * it lies outside scratch space: it becomes the kept index.
   */
  seed: string;
  /** Where the snapshot after the worker will find its kept index, if any. */
  indexFile?: string;
  /** Write the kept index only when it is first needed (see `SnapshotOptions.keepOnDemand`). */
  keepOnDemand?: boolean;
  /** The repository's settings, read when first asked for. */
  config: () => Promise<ConversionConfig>;
  /** Called with what git ignores as soon as `git status` said it. */
  ignoredKnown?: (ignored: readonly string[]) => void;
  /** Called once the snapshot is taken, with `SnapshotOptions.addedKnown`'s paths. */
  addedKnown?: (paths: readonly string[]) => void;
  /**
   * Called once at the end: the index files of other runs that share this snapshot, each kept
   * (on demand) from this one's seed as `indexFile` is (shared_snapshot.ts).
   */
  alsoKeep?: () => readonly string[];
  /**
   * For a walk started ahead of its run (shared_snapshot.ts): resolves true once a run wants the
   * snapshot, false once none will. Asked after `git status`, before anything is hashed: a walk
   * nobody wants ends there, however large the tree's changed files.
   */
  wanted?: () => Promise<boolean>;
  /** The clock the memo's check of settled files reads (quick_memo.ts). @default Date.now */
  memoClock?: () => number;
  /** The walk over `seed`, when it was started before (walk_start.ts). */
  started?: WalkStarted;
}

/**
 * The snapshot before a worker by the quick path, or null where only the full path is sure. A
 * failure on the way (a file removed while it is read, say) is also null: the full path then
 * reads the tree afresh and reports any error of its own.
 */
export async function quickSnapshot(
  sys: GitSys,
  repo: RepoInfo,
  options: QuickOptions,
): Promise<QuickResult | null> {
  try {
    return await quick(sys, repo, options);
  } catch {
    return null;
  }
}

async function quick(sys: GitSys, repo: RepoInfo, options: QuickOptions): Promise<QuickResult> {
  const env = { ...trackingEnv(repo, options), GIT_INDEX_FILE: options.seed };
  const call = { cwd: repo.root, env };
  const status = (options.started ?? startStatus(sys, repo, options)).status;
  const bytes = await Deno.readFile(options.seed);
  const sum = indexChecksum(bytes, repo.objectFormat === "sha256" ? 32 : 20);
  const memo = await readMemo(options.objectsDir, repo.root, sum);
  // The hash (node's crypto, slow to load) loads beside git's walk, unless the memo may spare it.
  let loading: Promise<ObjectCodec> | null = null;
  const codecNow = () => {
    if (loading === null) {
      loading = objectCodec();
      loading.catch(() => undefined);
    }
    return loading;
  };
  if (memo === null) codecNow();
  // The memo was kept for these very index bytes: they passed the index's checks then.
  if (memo === null && indexMayNameAttributes(bytes) === true) not("an attributes file");
  // What else this snapshot needs starts once the walk is under way.
  const config = await options.config();
  if (!config.plain || config.sparse) not("settings that are not plain");
  if (await convertsOutsideTree(sys, repo, config)) not("conversions");
  let parsed: ParsedIndex | null = null;
  const indexNow = () => parsed ??= parseIndex(bytes);
  if (memo === null) {
    const index = indexNow();
    if (index.unsupported !== null) not(index.unsupported);
    if (index.mode.includes(0o160000)) not("a submodule");
    if (index.version === 4 && holdsAttributes(index)) not("an attributes file");
  }
  const { stdout } = await status;
  const said = parseStatusV2(stdout);
  const head = statusHead(stdout);
  if (options.wanted !== undefined && !(await options.wanted())) not("no run wants it");
  said.ignored.sort();
  options.ignoredKnown?.([...said.ignored]);
  for (const path of said.untracked) {
    if (path === ".gitattributes" || path.endsWith("/.gitattributes")) not("an attributes file");
  }
  const reused = memo !== null && memoHolds(memo, said, [options.objectsDir, repo.objectsDir]);
  const made = reused ? fromMemo(memo) : await build(sys, repo, options, {
    said,
    index: indexNow(),
    codec: codecNow(),
    checksum: sum,
  });
  const { changes, root, folders } = made;
  // The tree's file list, for whoever asks next (a run's secret-looking files): no `ls-tree`.
  const removed = new Set([...said.changed].filter(([, mode]) => mode === null).map(([p]) => p));
  rememberFiles(root, () => filesOfIndex(indexNow(), removed, said.untracked));
  const facts = {
    root: repo.root,
    tracked: folders,
    untracked: said.untracked,
    ignored: said.ignored,
  };
  // Link counts say where the untracked folders are; where the file system does not count
  // subfolders in them, git lists them.
  const bare = bareByLinks(facts) ?? await bareFromListing(
    facts,
    (await git(sys, [
      "ls-files",
      "-z",
      "--others",
      "--directory",
      "--exclude-standard",
    ], call)).stdout,
  ) ?? not("a folder name Deno cannot read back");
  // Last: from here on the seed is the kept index being written. The runs sharing this
  // snapshot get a seed of their own first (all or none); a walk started ahead of its run
  // (shared_snapshot.ts) has no index of its own, only the seed it hands on.
  const others = options.alsoKeep?.() ?? [];
  const seeds = await seedsFor(options.seed, others);
  const basis = (seed: string): QuickBasis => ({
    seed,
    tree: root,
    untracked: said.untracked,
    deleted: [...removed],
    states: changes,
    known: made.known,
  });
  others.forEach((other, i) => {
    const seed = seeds[i]!;
    keepIndex(
      sys,
      repo,
      { ...options, indexFile: other, seed, keepOnDemand: true },
      changes,
      basis(seed),
    );
  });
  if (options.indexFile !== undefined) {
    const keeping = keepIndex(sys, repo, options, changes, basis(options.seed));
    if (options.keepOnDemand !== true) await keeping.settle();
  }
  const added = [...said.added, ...said.untracked];
  options.addedKnown?.([...added]);
  return {
    tree: root,
    bareDirs: bare,
    ignored: said.ignored,
    added,
    ...(head === undefined ? {} : { head }),
  };
}

/** The files' new states, the tree and its folders: built, or the memo's. */
interface Made {
  changes: Map<string, FileState>;
  root: string;
  folders: Map<string, string[]>;
  /** The files whose stat vouches for their bytes (`QuickBasis.known`). */
  known: QuickBasis["known"];
}

function fromMemo(memo: QuickMemo): Made {
  const changes = new Map<string, FileState>();
  const known = new Map<string, { stat: FileStat; state: NonNullable<FileState> }>();
  for (const file of [...memo.changed, ...memo.untracked]) {
    const state = file.mode === null ? null : { mode: file.mode, id: file.id! };
    changes.set(file.path, state);
    // A memo is kept only where every file it read was settled.
    if (state !== null && file.stat !== null) known.set(file.path, { stat: file.stat, state });
  }
  return { changes, root: memo.tree, folders: new Map(memo.folders), known };
}

/**
 * Hashes the changed and new files and builds the tree over `index`; keeps the memo when every
 * file hashed was settled (quick_memo.ts).
 */
async function build(
  sys: GitSys,
  repo: RepoInfo,
  options: QuickOptions,
  given: {
    said: StatusSaid;
    index: ParsedIndex;
    codec: Promise<ObjectCodec>;
    checksum: string | null;
  },
): Promise<Made> {
  const { said, index } = given;
  const modes = said.untracked.map((path) => untrackedMode(repo.root, path));
  const hashing = [...said.changed].filter(([, mode]) => mode !== null).map(([path]) => path);
  // Each file's stat before it is read: what the memo trusts it by next time.
  const readAt = (options.memoClock ?? Date.now)();
  const stats = new Map([...hashing, ...said.untracked].map((p) => [p, statOf(repo.root, p)]));
  const codec = await given.codec;
  const writer = new LooseWriter(options, codec);
  const ids = await hashFiles(sys, repo, { ...options, writer, codec }, [
    ...hashing,
    ...said.untracked,
  ]);
  const changes = new Map<string, FileState>();
  for (const [path, mode] of said.changed) {
    changes.set(path, mode === null ? null : { mode, id: ids.get(path)! });
  }
  said.untracked.forEach((path, i) => changes.set(path, { mode: modes[i]!, id: ids.get(path)! }));
  for (const state of changes.values()) {
    if (state !== null && !/^[0-9a-f]{40}$/.test(state.id)) not("a file that could not be hashed");
  }
  const built = buildTrees(index, changes, codec);
  for (const gone of built.gone) {
    // The full path lists a folder left with no tracked file among the bare ones.
    if (!representable(gone) || (await lstatOrNull(join(repo.root, gone)))?.isDirectory) {
      not("a folder whose files are all gone");
    }
  }
  writeTrees(writer, built);
  const known = new Map<string, { stat: FileStat; state: NonNullable<FileState> }>();
  for (const [path, stat] of stats) {
    const state = changes.get(path);
    if (stat !== null && state && settled(stat, readAt)) known.set(path, { stat, state });
  }
  const all = [...stats.values()];
  if (
    given.checksum !== null && built.gone.length === 0 &&
    all.every((stat) => stat !== null && settled(stat, readAt))
  ) {
    const file = (path: string) => {
      const state = changes.get(path)!;
      return {
        path,
        mode: state?.mode ?? null,
        id: state?.id ?? null,
        stat: stats.get(path) ?? null,
      };
    };
    await writeMemo(options.objectsDir, {
      version: 1,
      root: repo.root,
      index: given.checksum,
      changed: [...said.changed.keys()].map(file),
      untracked: said.untracked.map(file),
      tree: built.root,
      folders: [...built.folders],
    });
  }
  return { changes, root: built.root, folders: built.folders, known };
}

/**
 * A seed for each of `others` (`<index file>.seed`) from `seed`: a hard link (git never writes an
 * index in place, it renames a new one over it, so the others are left as they are) or a copy
 * (same mtime). All or none: on a failure the ones made are removed.
 */
async function seedsFor(seed: string, others: readonly string[]): Promise<string[]> {
  const made: string[] = [];
  try {
    for (const other of others) {
      const target = `${other}.seed`;
      await removeIfThere(target);
      try {
        await Deno.link(seed, target);
      } catch {
        const info = await Deno.stat(seed);
        await Deno.copyFile(seed, target);
        await Deno.utime(target, info.atime ?? info.mtime!, info.mtime!);
      }
      made.push(target);
    }
    return made;
  } catch (error) {
    for (const target of made) await removeIfThere(target).catch(() => undefined);
    throw error;
  }
}

/**
 * Writes the kept index, when `settle` is first called (it is in `pending` until then and while
 * it is written): the seed (which must lie outside scratch space)
 * with the changed and new files added and the deleted ones removed, and its cache tree filled,
 * moved into place when complete. Should that fail (a file turned into a folder, say), the
 * snapshot's tree itself is read in: no stat data at all, so the next `add -A` reads every file,
 * slow but exact.
 */
function keepIndex(
  sys: GitSys,
  repo: RepoInfo,
  options: QuickOptions,
  changes: ReadonlyMap<string, FileState>,
  basis: QuickBasis,
): Keeping {
  const tree = basis.tree;
  const target = options.indexFile!;
  const draft = options.seed;
  const env = { ...trackingEnv(repo, options), GIT_INDEX_FILE: draft };
  // A file the snapshot found deleted stays out even where it is back by now: git's rules for
  // untracked files decide whether the snapshot after takes it, as on the full path.
  const paths = [...changes].filter(([, state]) => state !== null).map(([path]) => path);
  const deleted = [...changes].filter(([, state]) => state === null).map(([path]) => path);
  let work: Promise<void> | null = null;
  const write = () =>
    (async () => {
      // From here on the seed becomes the kept index: no quick path reads it any more.
      if (bases.get(target) === basis) bases.delete(target);
      try {
        if (paths.length + deleted.length > 0) {
          // Read from the disk again, so the entries get their stat data: what a worker changed
          // since is read as it is now, which is what the snapshot after reads anyway.
          if (paths.length > 0) {
            await git(sys, ["update-index", "-z", "--add", "--remove", "--stdin"], {
              cwd: repo.root,
              env,
              stdin: nulList(paths),
            });
          }
          if (deleted.length > 0) {
            await git(sys, ["update-index", "-z", "--force-remove", "--stdin"], {
              cwd: repo.root,
              env,
              stdin: nulList(deleted),
            });
          }
          // Fills the cache tree again: the snapshot after the worker then writes only the
          // folders the worker changed.
          await git(sys, ["write-tree"], { cwd: repo.root, env });
        }
      } catch {
        await removeIfThere(draft);
        await git(sys, ["read-tree", tree], { cwd: repo.root, env });
      }
      await Deno.rename(draft, target);
    })().catch(async () => {
      await removeIfThere(draft).catch(() => undefined);
    }).finally(() => {
      if (pending.get(target) === keeping) pending.delete(target);
    });
  const keeping: Keeping = {
    settle: () => (work ??= write()),
    drop: async () => {
      if (bases.get(target) === basis) bases.delete(target);
      if (work !== null) return await work;
      if (pending.get(target) === keeping) pending.delete(target);
      await removeIfThere(draft);
    },
  };
  pending.set(target, keeping);
  bases.set(target, basis);
  return keeping;
}
