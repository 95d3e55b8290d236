/**
 * The quick snapshot's memo, kept between runs: what the last quick snapshot of a repository
 * built on top of one index (named by the index file's own checksum), so the next one, where
 * `git status` says the same and every file it names is as it was, reuses the tree instead of
 * hashing the files again and building their folders' trees (and without loading a hash).
 *
 * A file is trusted by its stat data as git trusts an index entry: the same size, mode, inode,
 * device, change and modification time, and last changed well before the memo read it (a file
 * changed within the same tick as it was read could look the same and hold other bytes; such a
 * memo is not kept). The change time cannot be set back by a program (a modification time
 * can), so a file rewritten with its old modification time is read again. Anything else (a
 * different index, another list from `git status`, a file changed, the tree's object gone)
 * and the snapshot builds its tree as before, and keeps a new memo.
 */
import { dirname, join } from "../sys/path.ts";
import { hexAt } from "./index_file.ts";
import { representable } from "./lossless.ts";

/** What a file looked like when the memo read it. */
export interface FileStat {
  size: number;
  mode: number;
  ino: number;
  dev: number;
  mtime: number;
  ctime: number;
}

/** One file git status named: its path, its mode (null: deleted), id and stat (when hashed). */
export interface MemoFile {
  path: string;
  mode: string | null;
  id: string | null;
  stat: FileStat | null;
}

/** The memo of one repository's last quick snapshot. */
export interface QuickMemo {
  version: 1;
  root: string;
  /** The index file's checksum (its last bytes). */
  index: string;
  /** Changed tracked files, in `git status` order. */
  changed: MemoFile[];
  /** Untracked files, in `git status` order. */
  untracked: MemoFile[];
  tree: string;
  /** Each folder of the tree with its subfolders (the quick path's `folders`). */
  folders: [string, string[]][];
}

const VERSION = 1;
/**
 * How long before it was read a file must have been changed last for its stat to vouch for its
 * bytes (file systems keep times as coarse as 2 s).
 */
export const RACY_MS = 3000;

/** Where the memo of the store at `objectsDir` lives. */
export function memoPath(objectsDir: string): string {
  return join(dirname(objectsDir), "quick-memo.json");
}

/**
 * The index file's checksum in hex, or null when it has none to trust (too short, or written
 * with `index.skipHash`, whose checksum is all zeros).
 */
export function indexChecksum(bytes: Uint8Array, idLength: number): string | null {
  if (bytes.length < 12 + idLength) return null;
  const sum = hexAt(bytes, bytes.length - idLength, idLength);
  return /^0+$/.test(sum) ? null : sum;
}

/** The memo for `root` over the index `index`, or null (none, another, unreadable). */
export async function readMemo(
  objectsDir: string,
  root: string,
  index: string | null,
): Promise<QuickMemo | null> {
  if (index === null) return null;
  try {
    const memo = JSON.parse(await Deno.readTextFile(memoPath(objectsDir))) as QuickMemo;
    return memo.version === VERSION && memo.root === root && memo.index === index ? memo : null;
  } catch {
    return null;
  }
}

/** A file's stat as the memo keeps it, or null when it is not a regular file. */
export function statOf(root: string, path: string): FileStat | null {
  if (!representable(path)) return null;
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(join(root, path));
  } catch {
    return null;
  }
  if (!info.isFile || info.mtime === null || info.ctime === null) return null;
  return {
    size: info.size,
    mode: info.mode ?? 0,
    ino: info.ino ?? 0,
    dev: info.dev,
    mtime: info.mtime.getTime(),
    ctime: info.ctime.getTime(),
  };
}

export function sameStat(a: FileStat | null, b: FileStat | null): boolean {
  return a !== null && b !== null && a.size === b.size && a.mode === b.mode && a.ino === b.ino &&
    a.dev === b.dev && a.mtime === b.mtime && a.ctime === b.ctime;
}

/** True when the stat `stat`, taken at `readAt`, vouches for the bytes read after it. */
export function settled(stat: FileStat, readAt: number): boolean {
  return stat.mtime < readAt - RACY_MS && stat.ctime < readAt - RACY_MS;
}

/**
 * True when the memo holds for what `git status` said now: the same files named, with the same
 * modes, each hashed one as it was (stat), and the tree still in the store.
 */
export function memoHolds(
  memo: QuickMemo,
  said: { changed: ReadonlyMap<string, string | null>; untracked: readonly string[] },
  objectsDirs: readonly string[],
): boolean {
  if (
    memo.changed.length !== said.changed.size || memo.untracked.length !== said.untracked.length
  ) {
    return false;
  }
  let n = 0;
  for (const [path, mode] of said.changed) {
    const kept = memo.changed[n++]!;
    if (kept.path !== path || kept.mode !== mode) return false;
    if (mode !== null && !sameStat(kept.stat, statOf(memo.root, path))) return false;
  }
  for (let i = 0; i < said.untracked.length; i++) {
    const kept = memo.untracked[i]!;
    if (kept.path !== said.untracked[i]) return false;
    if (!sameStat(kept.stat, statOf(memo.root, kept.path))) return false;
  }
  // The store is Pitroom's: a tree written there is never removed but with the whole folder.
  // Children are written before their parents, so the root says the rest are there. (A tree of
  // the user's own, packed, is not looked for: the tree is built again.)
  return objectsDirs.some((dir) => {
    try {
      return Deno.statSync(join(dir, memo.tree.slice(0, 2), memo.tree.slice(2))).isFile;
    } catch {
      return false;
    }
  });
}

/** Keeps `memo` (written whole, then renamed into place); a failure only costs speed. */
export async function writeMemo(objectsDir: string, memo: QuickMemo): Promise<void> {
  const path = memoPath(objectsDir);
  const draft = `${path}.${crypto.randomUUID()}`;
  try {
    await Deno.writeTextFile(draft, JSON.stringify(memo), { mode: 0o600 });
    await Deno.rename(draft, path);
  } catch {
    await Deno.remove(draft).catch(() => undefined);
  }
}
