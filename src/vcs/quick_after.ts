/**
 * The quick path of the snapshot after a worker: the same tree as `git add -A` on the kept index
 * and `git write-tree` would give (snapshot.ts), from the seed of a quick snapshot before it
 * instead, so the kept index is never written (two passes over the whole index, 150 ms on
 * 31,000 files) and the tree is not walked twice.
 *
 * One `git status` over the seed (read only) names what differs from the user's index as the
 * snapshot before read it; only those files are read again, but for the ones whose stat still
 * vouches for the bytes the snapshot before read (vcs/quick_memo.ts), and only their folders get
 * new trees. The kept index's meaning is kept: the untracked files of the snapshot before stay in
 * the tree even where git now ignores them, and new paths the snapshot before saw as ignored stay
 * out. Where the quick path before would decline (conversions, a symbolic link or a submodule
 * among the changes, an attributes file), and where a file the snapshot before found deleted is
 * back (the kept index holds no entry for it: git's rules for untracked files decide), this one
 * declines too, and the full path reads the kept index, written then.
 */
import { join } from "../sys/path.ts";
import { lstatOrNullSync } from "../sys/fs.ts";
import type { GitSys } from "./git.ts";
import { parseIndex } from "./index_file.ts";
import { sameStat, statOf } from "./quick_memo.ts";
import { hashFiles, not, parseStatusV2, quickBasis, untrackedMode } from "./quick_snapshot.ts";
import { type ConversionConfig, convertsOutsideTree } from "./raw.ts";
import type { RepoInfo } from "./repo.ts";
import type { StoreOptions } from "./store.ts";
import { buildTrees, type FileState, LooseWriter, objectCodec, writeTrees } from "./tree_write.ts";
import { startStatus } from "./walk_start.ts";

/** Options of `quickAfter`. */
export interface QuickAfterOptions extends StoreOptions {
  /** The kept index of the snapshot before (not written yet: its basis stands in for it). */
  indexFile: string;
  /** The snapshot before's tree. */
  before: string;
  /** True for a new path the snapshot before saw as ignored (it stays out). */
  ignoredBefore: (path: string) => boolean;
  /** The repository's settings. */
  config: () => Promise<ConversionConfig>;
}

/**
 * The tree of the work tree after a worker by the quick path, or null where the full path must
 * take it (no basis for `indexFile`, or anything this path does not handle).
 */
export async function quickAfter(
  sys: GitSys,
  repo: RepoInfo,
  options: QuickAfterOptions,
): Promise<string | null> {
  const basis = quickBasis(options.indexFile);
  if (basis === undefined || basis.tree !== options.before) return null;
  try {
    return await after(sys, repo, options, basis);
  } catch {
    return null;
  }
}

async function after(
  sys: GitSys,
  repo: RepoInfo,
  options: QuickAfterOptions,
  basis: NonNullable<ReturnType<typeof quickBasis>>,
): Promise<string> {
  const { status } = startStatus(sys, repo, { ...options, seed: basis.seed });
  const reading = options.config();
  // The seed passed the quick path's checks of its index before; read beside git's walk, parsed
  // only if the tree changed.
  const bytes = Deno.readFile(basis.seed);
  bytes.catch(() => undefined);
  const config = await reading;
  if (!config.plain || config.sparse) not("settings that are not plain");
  if (await convertsOutsideTree(sys, repo, config)) not("conversions");
  const said = parseStatusV2((await status).stdout);
  const root = repo.root;
  for (const path of basis.deleted) {
    const info = lstatOrNullSync(join(root, path));
    if (info !== null && !info.isDirectory) not("a file deleted before the worker is back");
  }
  const before = new Set(basis.untracked);
  const untracked = said.untracked.filter((path) => {
    if (path === ".gitattributes" || path.endsWith("/.gitattributes")) not("an attributes file");
    return before.has(path) || !options.ignoredBefore(path);
  });
  // The untracked files of the snapshot before that git now ignores are still the tree's.
  const listed = new Set(said.untracked);
  for (const path of basis.untracked) {
    if (!listed.has(path) && lstatOrNullSync(join(root, path)) !== null) untracked.push(path);
  }
  const changes = new Map<string, FileState>();
  const modes = new Map<string, string>();
  for (const [path, mode] of said.changed) {
    if (mode === null) changes.set(path, null);
    else modes.set(path, mode);
  }
  for (const path of untracked) modes.set(path, untrackedMode(root, path));
  // A file as the snapshot before read it keeps its id: no second read.
  const reread: string[] = [];
  for (const [path, mode] of modes) {
    const known = basis.known.get(path);
    if (
      known !== undefined && known.state.mode === mode && sameStat(known.stat, statOf(root, path))
    ) {
      changes.set(path, known.state);
    } else reread.push(path);
  }
  // Nothing new to read and every file as the snapshot before found it: its tree.
  if (reread.length === 0 && same(changes, basis.states)) return basis.tree;
  const codec = await objectCodec();
  const writer = new LooseWriter(options, codec);
  const ids = await hashFiles(sys, repo, { ...options, writer, codec }, reread);
  for (const path of reread) {
    const id = ids.get(path);
    if (id === undefined || !/^[0-9a-f]{40}$/.test(id)) not("a file that could not be hashed");
    changes.set(path, { mode: modes.get(path)!, id: id! });
  }
  if (same(changes, basis.states)) return basis.tree;
  const index = parseIndex(await bytes);
  if (index.unsupported !== null) not(index.unsupported);
  const built = buildTrees(index, changes, codec);
  writeTrees(writer, built);
  return built.root;
}

/** True when both name the same files in the same states. */
function same(a: ReadonlyMap<string, FileState>, b: ReadonlyMap<string, FileState>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, state] of a) {
    if (!b.has(path)) return false;
    const other = b.get(path)!;
    if (
      state === null || other === null
        ? state !== other
        : state.mode !== other.mode || state.id !== other.id
    ) {
      return false;
    }
  }
  return true;
}
