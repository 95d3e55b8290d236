/**
 * Compares two snapshots: the changed files with their status and diffstat, and the unified
 * patch (binary-safe, full blob ids) as bytes. Renames are off: a moved file is a delete and an
 * add, which is also how revert undoes it. Only git objects are read; the work tree is not.
 */
import { join } from "../sys/path.ts";
import { git, type GitSys, nulList } from "./git.ts";
import {
  type FileChange,
  mergeChanges,
  parseNumstatZ,
  parseRawZ,
  type RawChange,
} from "./diff_parse.ts";
import type { RepoInfo } from "./repo.ts";
import type { Snapshot } from "./snapshot.ts";
import { type StoreOptions, trackingEnv, withScratch } from "./store.ts";

/** A snapshot, or just its tree id. */
export type SnapshotRef = Snapshot | string;

/** Two snapshots to compare, with the store that holds their objects. */
export interface RangeOptions extends StoreOptions {
  before: SnapshotRef;
  after: SnapshotRef;
}

/** What changed between two snapshots. */
export interface ChangeSet {
  before: string;
  after: string;
  /** Changed files in git's path order. */
  files: FileChange[];
  /** Total lines added over the text files. */
  added: number;
  /** Total lines removed over the text files. */
  removed: number;
}

/** The tree id of a snapshot reference. */
export function treeOf(ref: SnapshotRef): string {
  return typeof ref === "string" ? ref : ref.tree;
}

const COMPARE = ["diff-tree", "-r", "--no-renames", "--no-textconv", "--no-ext-diff", "--no-color"];

/** The changed paths between `before` and `after` with modes and blobs, without line counts. */
export async function listChanges(
  sys: GitSys,
  repo: RepoInfo,
  options: RangeOptions,
): Promise<RawChange[]> {
  const before = treeOf(options.before);
  const after = treeOf(options.after);
  if (before === after) return [];
  const call = { cwd: repo.root, env: trackingEnv(repo, options) };
  return parseRawZ((await git(sys, [...COMPARE, "-z", "--raw", before, after], call)).stdout);
}

/** The changed files between `before` and `after`, with line counts. */
export async function diffSnapshots(
  sys: GitSys,
  repo: RepoInfo,
  options: RangeOptions,
): Promise<ChangeSet> {
  const before = treeOf(options.before);
  const after = treeOf(options.after);
  if (before === after) return { before, after, files: [], added: 0, removed: 0 };
  const call = { cwd: repo.root, env: trackingEnv(repo, options) };
  const raw = await listChanges(sys, repo, options);
  const numstat = await git(sys, [...COMPARE, "-z", "--numstat", before, after], call);
  const files = mergeChanges(raw, parseNumstatZ(numstat.stdout));
  return {
    before,
    after,
    files,
    added: files.reduce((sum, file) => sum + file.added, 0),
    removed: files.reduce((sum, file) => sum + file.removed, 0),
  };
}

/**
 * The tree `before` with `after`'s changes to `paths` only (written to Pitroom's store). Paths
 * go to git as bytes on stdin, never as pathspecs in argv, so any file name works.
 */
async function onlyPaths(
  sys: GitSys,
  repo: RepoInfo,
  options: RangeOptions & { dir: string; paths: readonly string[] },
): Promise<string> {
  const wanted = new Set(options.paths);
  const zero = "0".repeat(treeOf(options.before).length);
  const records = (await listChanges(sys, repo, options)).filter((c) => wanted.has(c.path)).map(
    (c) => c.newMode === null ? `0 ${zero}\t${c.path}` : `${c.newMode} ${c.newBlob}\t${c.path}`,
  );
  const call = {
    cwd: repo.root,
    env: { ...trackingEnv(repo, options), GIT_INDEX_FILE: join(options.dir, "only.index") },
  };
  await git(sys, ["read-tree", treeOf(options.before)], call);
  await git(sys, ["update-index", "-z", "--index-info"], { ...call, stdin: nulList(records) });
  return (await git(sys, ["write-tree"], call)).stdout.trim();
}

/**
 * The unified patch from `before` to `after` as bytes (file contents are not necessarily
 * UTF-8). `git apply` takes it back, binary files included. Empty when nothing changed.
 */
export async function patchBetween(
  sys: GitSys,
  repo: RepoInfo,
  options: RangeOptions & { paths?: readonly string[] },
): Promise<Uint8Array> {
  const before = treeOf(options.before);
  const whole = treeOf(options.after);
  if (before === whole) return new Uint8Array();
  return await withScratch(options, async (dir) => {
    const after = options.paths === undefined
      ? whole
      : await onlyPaths(sys, repo, { ...options, dir, paths: options.paths });
    const file = join(dir, "patch.diff");
    await git(sys, [
      ...COMPARE,
      "--patch",
      "--binary",
      "--full-index",
      "--src-prefix=a/",
      "--dst-prefix=b/",
      `--output=${file}`,
      before,
      after,
    ], { cwd: repo.root, env: trackingEnv(repo, options) });
    return await Deno.readFile(file);
  });
}

/** One file's change from one entry to another: its patch (as `patchBetween`) and line counts. */
export interface EntryPatch {
  patch: Uint8Array;
  added: number;
  removed: number;
  binary: boolean;
}

/** The tree holding only `path` as `entry` (the empty tree when null). */
async function treeWith(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & {
    dir: string;
    path: string;
    entry: { mode: string; blob: string } | null;
    name: string;
  },
): Promise<string> {
  const call = {
    cwd: repo.root,
    env: { ...trackingEnv(repo, options), GIT_INDEX_FILE: join(options.dir, options.name) },
  };
  await git(sys, ["read-tree", "--empty"], call);
  if (options.entry !== null) {
    const record = `${options.entry.mode} ${options.entry.blob}\t${options.path}`;
    await git(sys, ["update-index", "-z", "--index-info"], { ...call, stdin: nulList([record]) });
  }
  return (await git(sys, ["write-tree"], call)).stdout.trim();
}

/** The patch of one file from `before` to `after` (entries; null: no file). */
export async function patchOfEntries(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & {
    path: string;
    before: { mode: string; blob: string } | null;
    after: { mode: string; blob: string } | null;
  },
): Promise<EntryPatch> {
  return await withScratch(options, async (dir) => {
    const a = await treeWith(sys, repo, { ...options, dir, entry: options.before, name: "a" });
    const b = await treeWith(sys, repo, { ...options, dir, entry: options.after, name: "b" });
    const patch = await patchBetween(sys, repo, { ...options, before: a, after: b });
    const set = await diffSnapshots(sys, repo, { ...options, before: a, after: b });
    const file = set.files[0];
    return {
      patch,
      added: file?.added ?? 0,
      removed: file?.removed ?? 0,
      binary: file?.binary ?? false,
    };
  });
}
