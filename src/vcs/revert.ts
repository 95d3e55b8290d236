/**
 * Undoes exactly the changes between two snapshots in the work tree, and nothing else.
 *
 * First every affected path is checked to still be exactly as in `after` (or already back as in
 * `before`, left so by a revert cut short, and then skipped); any other state refuses the whole
 * revert (`ChangedSinceError`) before anything is written. Then files that
 * `after` added are removed, directories left empty by that are pruned unless they existed
 * before, and files that `after` modified or deleted are written back from `before`: the blobs
 * are checked out by git byte for byte (no filter or line-ending rule: snapshots hold the bytes
 * that were on disk) into scratch space, then
 * copied into place, in place for an existing file so its permissions stay, with the
 * executable bit of `before`. The user's index is never read or written.
 */
import { dirname, join } from "../sys/path.ts";
import { RefusedError } from "../sys/errors.ts";
import { git, type GitSys, nulList } from "./git.ts";
import { listChanges, type RangeOptions, treeOf } from "./diff.ts";
import type { RawChange } from "./diff_parse.ts";
import type { RepoInfo } from "./repo.ts";
import { type StoreOptions, trackingEnv, withScratch } from "./store.ts";
import { rawCommonDir, rawEnv } from "./raw.ts";
import { representable } from "./lossless.ts";
import {
  changedSince,
  entryOf,
  GITLINK,
  readPathStates,
  tracksFileMode,
} from "./worktree_state.ts";
import { lstatOrNull } from "../sys/fs.ts";

/** Options of `revert`. */
export interface RevertOptions extends RangeOptions {
  /** The run whose changes are undone, named in the refusal's hint. */
  runId?: string;
  /** Undo only these paths (relative to the root); the default is every changed path. */
  only?: ReadonlySet<string>;
}

/** What a revert did, paths relative to the repository root. */
export interface RevertReport {
  /** Files `after` added, now removed. */
  removed: string[];
  /** Files `after` modified or deleted, now as in `before`. */
  restored: string[];
  /** Directories left empty by removed files that did not exist before. */
  removedDirs: string[];
  /** Submodule (gitlink) changes, which revert does not touch. */
  skipped: string[];
}

/** Refusal: some files changed since the snapshot that is being undone. */
export class ChangedSinceError extends RefusedError {
  /** The paths that differ from the `after` snapshot. */
  readonly paths: string[];

  constructor(paths: string[], runId: string | undefined) {
    const shown = paths.slice(0, 10).map((path) => `"${path}"`).join(", ");
    const more = paths.length > 10 ? ` and ${paths.length - 10} more` : "";
    super(
      "changed_since",
      `Cannot revert: ${paths.length} file(s) changed since the run: ${shown}${more}`,
      { hint: `inspect the run's changes with \`pitroom show ${runId ?? "RUN"} --patch\`` },
    );
    this.paths = paths;
  }
}

async function isEmptyDir(path: string): Promise<boolean> {
  for await (const _ of Deno.readDir(path)) return false;
  return true;
}

/** Every directory of `tree` (relative paths, no trailing slash). */
async function treeDirs(
  sys: GitSys,
  repo: RepoInfo,
  options: RangeOptions,
  tree: string,
): Promise<Set<string>> {
  const out = await git(sys, ["ls-tree", "-r", "-d", "-z", "--name-only", "--full-tree", tree], {
    cwd: repo.root,
    env: trackingEnv(repo, options),
  });
  return new Set(out.stdout.split("\0").filter((dir) => dir !== ""));
}

/** Parent directories of `paths`, deepest first. */
export function parentsDeepestFirst(paths: string[]): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(path); dir !== "." && dir !== "/"; dir = dirname(dir)) dirs.add(dir);
  }
  return [...dirs].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? -1 : 1));
}

/** Makes room for a file at `dest`: removes a symlink, file or empty directory there. */
async function clearWay(dest: string, existing: Deno.FileInfo | null): Promise<void> {
  if (existing === null) {
    await Deno.mkdir(dirname(dest), { recursive: true });
    return;
  }
  if (existing.isDirectory && !(await isEmptyDir(dest))) {
    throw new RefusedError(
      "restore_blocked",
      `Cannot restore "${dest}": a directory is in the way`,
      {
        hint: `move "${dest}" aside, then run the revert again`,
      },
    );
  }
  await Deno.remove(dest);
}

/** Writes `src` (a scratch checkout) to `dest` as a file or symlink of git mode `mode`. */
async function place(src: string, dest: string, mode: string): Promise<void> {
  const existing = await lstatOrNull(dest);
  if (mode === "120000") {
    const target = await Deno.readLink(src);
    await clearWay(dest, existing);
    await Deno.symlink(target, dest);
    return;
  }
  if (existing?.isFile) {
    // In place: the file keeps its inode, owner and permission bits; only the x bit follows git.
    await Deno.writeFile(dest, await Deno.readFile(src));
    const perm = (existing.mode ?? 0o644) & 0o7777;
    const want = mode === "100755" ? perm | ((perm & 0o444) >> 2) : perm & ~0o111;
    if (want !== perm) await Deno.chmod(dest, want);
    return;
  }
  await clearWay(dest, existing);
  // A new file gets the permissions git gave the scratch copy (umask applied).
  await Deno.copyFile(src, dest);
}

/** Checks the blobs of `entries` out into `dir`, byte for byte (no filter, no eol rule). */
async function checkoutInto(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { dir: string; entries: RawChange[] },
): Promise<string> {
  const common = await rawCommonDir(repo, options.dir);
  const env = { ...rawEnv(repo, options, common), GIT_INDEX_FILE: join(options.dir, "index") };
  const call = { cwd: repo.root, env };
  const records = options.entries.map((change) =>
    `${change.oldMode} ${change.oldBlob}\t${change.path}`
  );
  await git(sys, ["update-index", "-z", "--index-info"], { ...call, stdin: nulList(records) });
  const out = join(options.dir, "out") + "/";
  await git(sys, ["checkout-index", "--all", "--force", `--prefix=${out}`], call);
  return out;
}

/** A throwaway index in `dir` holding `records` (`mode blob\tpath`), over the raw overlay. */
async function indexOf(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { dir: string; records: string[] },
): Promise<{ cwd: string; env: Record<string, string> }> {
  await Deno.mkdir(options.dir, { recursive: true });
  const env = {
    ...rawEnv(repo, options, await rawCommonDir(repo, options.dir)),
    GIT_INDEX_FILE: join(options.dir, "index"),
    GIT_LITERAL_PATHSPECS: "1",
  };
  const call = { cwd: repo.root, env };
  await git(sys, ["update-index", "-z", "--index-info"], {
    ...call,
    stdin: nulList(options.records),
  });
  return call;
}

/** Removes added files whose names are not UTF-8 (git's `rm` on a throwaway index). */
async function removeByGit(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { dir: string; entries: RawChange[] },
): Promise<void> {
  if (options.entries.length === 0) return;
  const records = options.entries.map((c) => `${c.newMode} ${c.newBlob}\t${c.path}`);
  const call = await indexOf(sys, repo, { ...options, records });
  await git(sys, ["rm", "-q", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"], {
    ...call,
    stdin: nulList(options.entries.map((change) => change.path)),
  });
}

/** Writes back files whose names are not UTF-8, byte for byte (git's `checkout-index`). */
async function restoreByGit(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { dir: string; entries: RawChange[] },
): Promise<void> {
  if (options.entries.length === 0) return;
  const records = options.entries.map((c) => `${c.oldMode} ${c.oldBlob}\t${c.path}`);
  const call = await indexOf(sys, repo, { ...options, records });
  await git(sys, ["checkout-index", "-f", "-z", "--stdin"], {
    ...call,
    stdin: nulList(options.entries.map((change) => change.path)),
  });
}

/** A blob to write at a path of the work tree, as a file of git mode `mode`. */
export interface BlobFile {
  path: string;
  blob: string;
  mode: string;
}

/**
 * Writes blobs of Pitroom's store (or the user's) into the work tree byte for byte, the way a
 * revert restores files: in place for an existing file, keeping its permission bits.
 */
export async function writeBlobs(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { files: readonly BlobFile[] },
): Promise<void> {
  if (options.files.length === 0) return;
  await withScratch(options, async (dir) => {
    const entries: RawChange[] = options.files.map((file) => ({
      path: file.path,
      status: "modified",
      oldMode: file.mode,
      oldBlob: file.blob,
      newMode: file.mode,
      newBlob: file.blob,
    }));
    const out = await checkoutInto(sys, repo, { ...options, dir, entries });
    for (const file of options.files) {
      await place(join(out, file.path), join(repo.root, file.path), file.mode);
    }
  });
}

/**
 * Undoes the changes from `before` to `after` in the work tree of `repo`, after checking that
 * every affected path is still exactly as in `after`; refuses with `ChangedSinceError` if not.
 */
export async function revert(
  sys: GitSys,
  repo: RepoInfo,
  options: RevertOptions,
): Promise<RevertReport> {
  const report: RevertReport = { removed: [], restored: [], removedDirs: [], skipped: [] };
  const changes: RawChange[] = [];
  for (const change of await listChanges(sys, repo, options)) {
    if (options.only !== undefined && !options.only.has(change.path)) continue;
    if (change.oldMode === GITLINK || change.newMode === GITLINK) report.skipped.push(change.path);
    else changes.push(change);
  }
  if (changes.length === 0) return report;

  const expected = new Map(changes.map((c) => [c.path, entryOf(c.newMode, c.newBlob)]));
  const now = await readPathStates(sys, repo, { ...options, paths: [...expected.keys()] });
  const fileMode = await tracksFileMode(sys, repo, options);
  const stale = new Set(changedSince(expected, now, { fileMode }));
  // A revert cut short (killed) left some paths as in `before` already: those are done.
  const unlikeBefore = new Set(
    changedSince(new Map(changes.map((c) => [c.path, entryOf(c.oldMode, c.oldBlob)])), now, {
      fileMode,
    }),
  );
  for (let i = changes.length - 1; i >= 0; i--) {
    const path = changes[i]!.path;
    if (stale.has(path) && !unlikeBefore.has(path)) changes.splice(i, 1);
  }
  const left = [...stale].filter((path) => unlikeBefore.has(path));
  if (left.length > 0) throw new ChangedSinceError(left, options.runId);

  // Names that are not UTF-8 cannot be given to the file system by Deno: git writes those.
  const byGit = changes.filter((change) => !representable(change.path));
  const named = changes.filter((change) => representable(change.path));
  const added = named.filter((change) => change.oldMode === null).map((change) => change.path);
  const toRestore = named.filter((change) => change.oldMode !== null);
  return await withScratch(options, async (dir) => {
    // Fetch what goes back first, so a git failure leaves the tree untouched.
    const out = toRestore.length === 0
      ? ""
      : await checkoutInto(sys, repo, { ...options, dir, entries: toRestore });

    for (const path of added) {
      await Deno.remove(join(repo.root, path));
      report.removed.push(path);
    }
    await removeByGit(sys, repo, {
      ...options,
      dir: join(dir, "rm"),
      entries: byGit.filter((change) => change.oldMode === null),
    });
    report.removed.push(...byGit.filter((c) => c.oldMode === null).map((c) => c.path));
    if (added.length > 0) {
      const before = typeof options.before === "string" ? null : options.before;
      const keep = await treeDirs(sys, repo, options, treeOf(options.before));
      const bare = before?.bareDirs ?? [];
      const existed = (dir: string) =>
        keep.has(dir) || bare.some((kept) => dir === kept || dir.startsWith(`${kept}/`));
      for (const dir of parentsDeepestFirst(added)) {
        const abs = join(repo.root, dir);
        if (existed(dir) || (await lstatOrNull(abs))?.isDirectory !== true) continue;
        if (!(await isEmptyDir(abs))) continue;
        await Deno.remove(abs);
        report.removedDirs.push(dir);
      }
    }
    for (const change of toRestore) {
      await place(join(out, change.path), join(repo.root, change.path), change.oldMode!);
      report.restored.push(change.path);
    }
    const back = byGit.filter((change) => change.oldMode !== null);
    await restoreByGit(sys, repo, { ...options, dir: join(dir, "co"), entries: back });
    report.restored.push(...back.map((change) => change.path));
    return report;
  });
}
