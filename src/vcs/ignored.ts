/**
 * Ignored files are not in any snapshot, so a worker could change them unseen. Before a run the
 * ignored entries the snapshot listed are walked (files inside ignored folders included, up to
 * `WATCH_MAX` files) and each file's stat is recorded; files up to `KEEP_FILE_MAX` bytes (at most
 * `KEEP_TOTAL_MAX` in all) are also kept, as blobs in Pitroom's object store, when the run may
 * have to undo them (a read run). After the run the same entries are walked again: a file whose
 * stat differs (and, when kept, whose bytes differ), a new file inside an ignored folder, or a
 * file that is gone is a change. `restoreIgnored` writes kept files back byte for byte and
 * removes new ones; a change to a file too large to keep is reported, not undone.
 */
import { dirname, join } from "../sys/path.ts";
import { RACY_MS } from "./quick_memo.ts";
import { lstatOrNull, lstatOrNullSync } from "../sys/fs.ts";
import type { GitSys } from "./git.ts";
import type { RepoInfo } from "./repo.ts";
import type { StoreOptions } from "./store.ts";
import { hashRaw } from "./raw.ts";

/** How many ignored files are watched at most; beyond it the rest go unwatched. */
export const WATCH_MAX = 10_000;
/** The largest ignored file kept so that a read run can undo a change to it (1 MiB). */
export const KEEP_FILE_MAX = 1024 * 1024;
/** The most bytes of ignored files kept for one run (64 MiB). */
export const KEEP_TOTAL_MAX = 64 * 1024 * 1024;

/** One watched file: size, mtime, ctime, inode, permission bits, and its blob when kept. */
type Stat = [number, number, number, number, number, string?];

/** What was recorded before a run (kept in the run folder as JSON). */
export interface IgnoredRecord {
  schemaVersion: 1;
  /** The ignored entries watched (files, and folders with a trailing slash). */
  entries: string[];
  files: Record<string, Stat>;
  /** True when `WATCH_MAX` cut the walk short. */
  truncated: boolean;
}

/** What changed among the ignored files since the record. */
export interface IgnoredChanges {
  changed: string[];
  added: string[];
  removed: string[];
}

function statOf(info: Deno.FileInfo): Stat {
  return [
    info.size,
    info.mtime?.getTime() ?? 0,
    info.ctime?.getTime() ?? 0,
    info.ino ?? 0,
    (info.mode ?? 0) & 0o7777,
  ];
}

/** Entries looked at between two yields to the event loop in `walkIgnored`. */
const WALK_SLICE = 500;

/**
 * Every regular file or symlink under the ignored `entries` (relative paths), with stats. The
 * walk asks synchronously, yielding to the event loop every `WALK_SLICE` entries: an asynchronous
 * stat is a round trip through the runtime's thread pool, and a read run's 500 ignored files took
 * ~60 ms that way after git status, where a synchronous stat is a few microseconds.
 */
async function walkIgnored(
  root: string,
  entries: readonly string[],
): Promise<{ files: Map<string, Deno.FileInfo>; truncated: boolean }> {
  const files = new Map<string, Deno.FileInfo>();
  const pending = [...entries];
  let looked = 0;
  for (let next = 0; next < pending.length; next++) {
    if (files.size >= WATCH_MAX) return { files, truncated: true };
    if (++looked % WALK_SLICE === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    const entry = pending[next]!;
    const rel = entry.endsWith("/") ? entry.slice(0, -1) : entry;
    const info = lstatOrNullSync(join(root, rel));
    if (info === null) continue;
    if (info.isDirectory) {
      try {
        for (const child of Deno.readDirSync(join(root, rel))) {
          pending.push(`${rel}/${child.name}${child.isDirectory ? "/" : ""}`);
        }
      } catch (error) {
        if (
          !(error instanceof Deno.errors.PermissionDenied) &&
          !(error instanceof Deno.errors.NotFound) && !(error instanceof Deno.errors.NotADirectory)
        ) throw error;
      }
    } else if (info.isFile || info.isSymlink) {
      files.set(rel, info);
    }
  }
  return { files, truncated: false };
}

/** What `recordIgnored` is told. */
export type RecordIgnoredOptions = StoreOptions & {
  ignored: readonly string[];
  keep: boolean;
  /** The clock the memo of kept files reads (tests move it on). @default Date.now */
  memoClock?: () => number;
  /**
   * Share the walk with the runs of a crew (see `sharedWalks`): `asked` is when the run was asked
   * for, `now` the clock that stamps a walk's start. Without it, the walk is the run's own.
   */
  share?: { asked: number; now(): number };
};

/** A walk of the ignored files being taken that runs may still join. */
interface Walking {
  /** When the walk began (the callers' clock). */
  since: number;
  result: Promise<IgnoredRecord>;
}

/**
 * The walks being taken, by repository root, object store, entries and keep. The read runs of a
 * crew snapshot their tree together (shared_snapshot.ts) and then each recorded the same ignored
 * files (stat every one, look up every kept blob) one after the other on the host's one thread: a
 * crew of 10 spent 170-330 ms there where one run spends 40. A run joins a walk still under way
 * that began at or after it was asked for, so the record sees every change made before the run's
 * request and is taken before its worker starts, as its own would be. Records are never changed
 * once made, so the runs can hold the same one.
 */
const sharedWalks = new Map<string, Walking>();

/** Walks the ignored entries of a snapshot and records them; keeps small files when `keep`. */
export async function recordIgnored(
  sys: GitSys,
  repo: RepoInfo,
  options: RecordIgnoredOptions,
): Promise<IgnoredRecord> {
  const share = options.share;
  if (share === undefined) return await recordAlone(sys, repo, options);
  const key = JSON.stringify([repo.root, options.objectsDir, options.keep, options.ignored]);
  const found = sharedWalks.get(key);
  if (found !== undefined && found.since >= share.asked) return await found.result;
  const walking: Walking = { since: share.now(), result: recordAlone(sys, repo, options) };
  sharedWalks.set(key, walking);
  try {
    return await walking.result;
  } finally {
    if (sharedWalks.get(key) === walking) sharedWalks.delete(key);
  }
}

async function recordAlone(
  sys: GitSys,
  repo: RepoInfo,
  options: RecordIgnoredOptions,
): Promise<IgnoredRecord> {
  const readAt = (options.memoClock ?? Date.now)();
  const walked = await walkIgnored(repo.root, options.ignored);
  const record: IgnoredRecord = {
    schemaVersion: 1,
    entries: [...options.ignored],
    files: {},
    truncated: walked.truncated,
  };
  const toKeep: string[] = [];
  let total = 0;
  for (const [path, info] of walked.files) {
    record.files[path] = statOf(info);
    if (options.keep && info.isFile && info.size <= KEEP_FILE_MAX) {
      if (total + info.size > KEEP_TOTAL_MAX) continue;
      total += info.size;
      toKeep.push(path);
    }
  }
  if (toKeep.length > 0) {
    // The files kept by an earlier run and unchanged since (by their stat, settled) are not
    // hashed again: their blobs are in the store already.
    const memo = await readKeptMemo(options.objectsDir, repo.root);
    const ids = new Map<string, string>();
    const rest: string[] = [];
    for (const path of toKeep) {
      const id = memo === null
        ? null
        : keptBlob(memo, path, record.files[path]!, options.objectsDir);
      if (id === null) rest.push(path);
      else ids.set(path, id);
    }
    if (rest.length > 0) {
      for (const [path, id] of await hashRaw(sys, repo, { ...options, paths: rest, write: true })) {
        ids.set(path, id);
      }
    }
    for (const path of toKeep) record.files[path]!.push(ids.get(path) ?? "");
    if (rest.length > 0 || memo === null) {
      await writeKeptMemo(options.objectsDir, repo.root, readAt, record, toKeep);
    }
  }
  return record;
}

/** The ignored files kept by the last run that kept any, by path: their stat and blob. */
interface KeptMemo {
  version: 1;
  root: string;
  /** When their stat was read (before they were hashed). */
  at: number;
  files: Record<string, Stat>;
}

function keptMemoPath(objectsDir: string): string {
  return join(dirname(objectsDir), "ignored-memo.json");
}

async function readKeptMemo(objectsDir: string, root: string): Promise<KeptMemo | null> {
  try {
    const memo = JSON.parse(await Deno.readTextFile(keptMemoPath(objectsDir))) as KeptMemo;
    return memo.version === 1 && memo.root === root && typeof memo.files === "object" ? memo : null;
  } catch {
    return null;
  }
}

/**
 * The blob the memo kept for `path`, when its stat is the one now (and it had settled when it
 * was read, see vcs/quick_memo.ts) and the blob is still in the store; else null.
 */
function keptBlob(memo: KeptMemo, path: string, now: Stat, objectsDir: string): string | null {
  const kept = memo.files[path];
  if (kept === undefined || typeof kept[5] !== "string" || !/^[0-9a-f]{40}$/.test(kept[5])) {
    return null;
  }
  for (let i = 0; i < 5; i++) if (kept[i] !== now[i]) return null;
  if (kept[1] >= memo.at - RACY_MS || kept[2] >= memo.at - RACY_MS) return null;
  try {
    Deno.statSync(join(objectsDir, kept[5].slice(0, 2), kept[5].slice(2)));
    return kept[5];
  } catch {
    return null;
  }
}

/** Keeps the settled files of `record` among `kept` as the memo; a failure only costs speed. */
async function writeKeptMemo(
  objectsDir: string,
  root: string,
  at: number,
  record: IgnoredRecord,
  kept: readonly string[],
): Promise<void> {
  const files: Record<string, Stat> = {};
  for (const path of kept) {
    const stat = record.files[path]!;
    if (stat[5] && stat[1] < at - RACY_MS && stat[2] < at - RACY_MS) files[path] = stat;
  }
  const path = keptMemoPath(objectsDir);
  const draft = `${path}.${crypto.randomUUID()}`;
  try {
    const memo: KeptMemo = { version: 1, root, at, files };
    await Deno.writeTextFile(draft, JSON.stringify(memo), { mode: 0o600 });
    await Deno.rename(draft, path);
  } catch {
    await Deno.remove(draft).catch(() => undefined);
  }
}

/** Compares the ignored files now with `record`. */
export async function ignoredChanges(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { record: IgnoredRecord },
): Promise<IgnoredChanges> {
  const { record } = options;
  const now = await walkIgnored(repo.root, record.entries);
  const changes: IgnoredChanges = { changed: [], added: [], removed: [] };
  const suspects: string[] = [];
  for (const [path, before] of Object.entries(record.files)) {
    const info = now.files.get(path);
    if (info === undefined) {
      // Beyond the watch limit a file may just not have been reached.
      if (!now.truncated) changes.removed.push(path);
      continue;
    }
    const stat = statOf(info);
    if (stat.every((value, i) => value === before[i])) continue;
    if (before[5] !== undefined && info.isFile) suspects.push(path);
    else changes.changed.push(path);
  }
  if (suspects.length > 0) {
    const ids = await hashRaw(sys, repo, { ...options, paths: suspects, write: false });
    for (const path of suspects) {
      const before = record.files[path]!;
      const sameMode = (statOf(now.files.get(path)!)[4] & 0o111) === (before[4] & 0o111);
      if (ids.get(path) !== before[5] || !sameMode) changes.changed.push(path);
    }
  }
  if (!record.truncated) {
    for (const path of now.files.keys()) {
      if (!(path in record.files)) changes.added.push(path);
    }
  }
  for (const list of [changes.changed, changes.added, changes.removed]) list.sort();
  return changes;
}

/** True when `changes` holds nothing. */
export function noIgnoredChanges(changes: IgnoredChanges): boolean {
  return changes.changed.length + changes.added.length + changes.removed.length === 0;
}

/** What `restoreIgnored` did. */
export interface IgnoredRestore {
  /** Written back from the kept bytes, or removed (new files). */
  undone: string[];
  /** Changed but not kept (too large, or over the total): left as the worker left them. */
  notKept: string[];
}

/**
 * Undoes `changes`: kept files are written back (through `write`, the revert machinery, given
 * path -> blob and mode), new files removed; files not kept are listed.
 */
export async function restoreIgnored(
  changes: IgnoredChanges,
  options: {
    root: string;
    record: IgnoredRecord;
    write: (files: { path: string; blob: string; mode: string }[]) => Promise<void>;
  },
): Promise<IgnoredRestore> {
  const result: IgnoredRestore = { undone: [], notKept: [] };
  const back: { path: string; blob: string; mode: string }[] = [];
  for (const path of [...changes.changed, ...changes.removed]) {
    const stat = options.record.files[path]!;
    if (stat[5] === undefined || stat[5] === "") {
      result.notKept.push(path);
      continue;
    }
    back.push({ path, blob: stat[5], mode: (stat[4] & 0o111) !== 0 ? "100755" : "100644" });
  }
  for (const path of changes.added) {
    const info = await lstatOrNull(join(options.root, path));
    if (info !== null && !info.isDirectory) await Deno.remove(join(options.root, path));
    result.undone.push(path);
  }
  if (back.length > 0) await options.write(back);
  result.undone.push(...back.map((file) => file.path));
  result.undone.sort();
  return result;
}
