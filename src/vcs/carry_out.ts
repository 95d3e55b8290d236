/**
 * Carries out a plan of writes (`tree_plan.ts`) in the work tree: checked first, then each file
 * written atomically, so a kill at any moment leaves every path holding either what it held or
 * what the plan wants, never a torn or empty file.
 *
 * First every path is read: one that holds neither side of its write (changed under the plan),
 * or a folder or file in the way of a write, refuses the whole plan (`PlanBlocked`) before
 * anything is written; paths already done are skipped (a plan cut short is finished this way).
 * Then the blobs to write are checked out by git byte for byte (no filter or line-ending rule)
 * into scratch space, removals are made, emptied folders pruned, and each file is put in place by
 * a rename: the scratch file itself when it lies on the same file system, else a temporary file
 * in the file's own folder. A file that existed keeps its permission bits (the executable bit
 * follows git's mode); a new one gets git's (umask applied). Being a rename, the write gives the
 * path a new inode: a hard link to the old file keeps the old bytes. Names that are not UTF-8
 * cannot be given to the file system by Deno: git writes those (not atomically). The user's
 * index is never read or written.
 */
import { dirname, join } from "../sys/path.ts";
import { RefusedError } from "../sys/errors.ts";
import { hasEntries, lstatOrNull } from "../sys/fs.ts";
import { git, type GitSys, nulList } from "./git.ts";
import { representable } from "./lossless.ts";
import { rawCommonDir, rawEnv } from "./raw.ts";
import type { RepoInfo } from "./repo.ts";
import { type StoreOptions, withScratch } from "./store.ts";
import { type PlannedWrite, progressOf, type TreePlan } from "./tree_plan.ts";
import { readPathStates, tracksFileMode } from "./worktree_state.ts";

/** Options of `carryOut`. */
export interface CarryOptions extends StoreOptions {
  /** The plan to carry out. */
  plan: TreePlan;
  /** A short name for this plan, in the names of its temporary files. */
  tag: string;
  /** Called after each path written or removed, with how many are done so far. */
  afterEach?: (count: number) => Promise<void>;
}

/** What a plan carried out did, paths relative to the root. */
export interface CarryReport {
  /** Written or removed now. */
  written: string[];
  /** Holding what the plan wants already (an earlier attempt did them). */
  already: string[];
  /** Folders removed because the plan emptied them. */
  pruned: string[];
}

/** Refusal: paths hold neither side of their write, or something is in the way; nothing written. */
export class PlanBlocked extends RefusedError {
  readonly paths: string[];
  readonly inTheWay: string[];

  constructor(paths: string[], inTheWay: string[]) {
    const all = [...paths, ...inTheWay];
    const shown = all.slice(0, 10).map((path) => `"${path}"`).join(", ");
    const more = all.length > 10 ? ` and ${all.length - 10} more` : "";
    super(
      "plan_blocked",
      inTheWay.length > 0 && paths.length === 0
        ? `Cannot write ${inTheWay.length} file(s): something is in the way: ${shown}${more}`
        : `${all.length} file(s) changed since: ${shown}${more}`,
      inTheWay.length > 0 ? { hint: `move ${shown} aside, then run the command again` } : {},
    );
    this.paths = paths;
    this.inTheWay = inTheWay;
  }
}

/** True when everything under the folder `rel` is a file the plan removes (or a folder). */
async function emptiedBy(
  root: string,
  rel: string,
  removed: ReadonlySet<string>,
): Promise<boolean> {
  for await (const entry of Deno.readDir(join(root, rel))) {
    const path = `${rel}/${entry.name}`;
    if (entry.isDirectory ? !(await emptiedBy(root, path, removed)) : !removed.has(path)) {
      return false;
    }
  }
  return true;
}

/** Paths of `todo` whose write something blocks: a full folder at the file, a file at a folder. */
async function inTheWay(root: string, todo: readonly PlannedWrite[]): Promise<string[]> {
  const removed = new Set(todo.filter((w) => w.to === null).map((w) => w.path));
  const blocked: string[] = [];
  const checked = new Map<string, boolean>();
  for (const write of todo) {
    if (write.to === null || !representable(write.path)) continue;
    const here = await lstatOrNull(join(root, write.path));
    if (here?.isDirectory && !(await emptiedBy(root, write.path, removed))) {
      blocked.push(write.path);
      continue;
    }
    for (let cut = write.path.indexOf("/"); cut > 0; cut = write.path.indexOf("/", cut + 1)) {
      const dir = write.path.slice(0, cut);
      if (removed.has(dir)) break;
      let ok = checked.get(dir);
      if (ok === undefined) {
        const info = await lstatOrNull(join(root, dir));
        ok = info === null || info.isDirectory;
        checked.set(dir, ok);
      }
      if (!ok) {
        blocked.push(dir);
        break;
      }
    }
  }
  return [...new Set(blocked)];
}

/** Checks the blobs of `writes` (their `to` side) out into `dir`, byte for byte. */
async function checkoutInto(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { dir: string; writes: readonly PlannedWrite[] },
): Promise<string> {
  const out = join(options.dir, "out") + "/";
  if (options.writes.length === 0) return out;
  const common = await rawCommonDir(repo, options.dir);
  const env = { ...rawEnv(repo, options, common), GIT_INDEX_FILE: join(options.dir, "index") };
  const call = { cwd: repo.root, env };
  const records = options.writes.map((w) => `${w.to!.mode} ${w.to!.blob}\t${w.path}`);
  await git(sys, ["update-index", "-z", "--index-info"], { ...call, stdin: nulList(records) });
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

/** Removes files whose names are not UTF-8 (git's `rm` on a throwaway index). */
async function removeByGit(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { dir: string; writes: PlannedWrite[] },
): Promise<void> {
  if (options.writes.length === 0) return;
  const records = options.writes.map((w) => `${w.from!.mode} ${w.from!.blob}\t${w.path}`);
  const call = await indexOf(sys, repo, { ...options, records });
  await git(sys, ["rm", "-q", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"], {
    ...call,
    stdin: nulList(options.writes.map((w) => w.path)),
  });
}

/** Writes files whose names are not UTF-8, byte for byte (git's `checkout-index`). */
async function writeByGit(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { dir: string; writes: PlannedWrite[] },
): Promise<void> {
  if (options.writes.length === 0) return;
  const records = options.writes.map((w) => `${w.to!.mode} ${w.to!.blob}\t${w.path}`);
  const call = await indexOf(sys, repo, { ...options, records });
  await git(sys, ["checkout-index", "-f", "-z", "--stdin"], {
    ...call,
    stdin: nulList(options.writes.map((w) => w.path)),
  });
}

/** Removes the folder `dir` holding only empty folders (a file in it fails the removal). */
async function removeEmptyFolders(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) await removeEmptyFolders(join(dir, entry.name));
  }
  await Deno.remove(dir);
}

/** True for the error a rename across file systems gives. */
function crossDevice(error: unknown): boolean {
  return error instanceof Error && (error as Error & { code?: string }).code === "EXDEV";
}

/**
 * Puts files checked out in scratch space into place by renames; falls back to a temporary copy
 * beside each file when scratch space is on another file system.
 */
class Placer {
  #copy = false;
  readonly #tag: string;

  constructor(tag: string) {
    this.#tag = tag;
  }

  /** The temporary name of a file written into `dir` (one at a time per folder). */
  temp(dir: string): string {
    return join(dir, `.pitroom-${this.#tag}.tmp`);
  }

  async place(src: string, dest: string, mode: string): Promise<void> {
    const existing = await lstatOrNull(dest);
    if (existing === null) await Deno.mkdir(dirname(dest), { recursive: true });
    // A folder here holds nothing but emptied folders (checked before anything was written).
    else if (existing.isDirectory) await removeEmptyFolders(dest);
    if (mode !== "120000") {
      // An existing file keeps its permission bits; only the executable bit follows git.
      const perm = existing?.isFile ? (existing.mode ?? 0o644) & 0o7777 : null;
      const want = perm === null
        ? null
        : mode === "100755"
        ? perm | ((perm & 0o444) >> 2)
        : perm & ~0o111;
      if (want !== null) await Deno.chmod(src, want);
    }
    if (!this.#copy) {
      try {
        await Deno.rename(src, dest);
        return;
      } catch (error) {
        if (!crossDevice(error)) throw error;
        this.#copy = true;
      }
    }
    const temp = this.temp(dirname(dest));
    await Deno.remove(temp).catch(() => undefined);
    if (mode === "120000") await Deno.symlink(await Deno.readLink(src), temp);
    else {
      await Deno.copyFile(src, temp);
      await Deno.chmod(temp, (await Deno.lstat(src)).mode! & 0o7777);
    }
    await Deno.rename(temp, dest);
  }
}

/** Removes leftovers of an earlier attempt of the same plan (its temporary files). */
async function removeLeftovers(root: string, placer: Placer, writes: readonly PlannedWrite[]) {
  const dirs = new Set(
    writes.filter((w) => representable(w.path)).map((w) => dirname(join(root, w.path))),
  );
  for (const dir of dirs) {
    await Deno.remove(placer.temp(dir)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory)) {
        throw error;
      }
    });
  }
}

/** Carries out `plan` in the work tree of `repo`; see the module comment. */
export async function carryOut(
  sys: GitSys,
  repo: RepoInfo,
  options: CarryOptions,
): Promise<CarryReport> {
  const plan = options.plan;
  const paths = plan.writes.map((w) => w.path);
  const now = await readPathStates(sys, repo, { ...options, paths });
  const fileMode = await tracksFileMode(sys, repo, options);
  const progress = progressOf(plan, now, { fileMode });
  const report: CarryReport = {
    written: [],
    already: progress.done.map((w) => w.path),
    pruned: [],
  };
  const placer = new Placer(options.tag);
  await removeLeftovers(repo.root, placer, plan.writes);
  const blocked = await inTheWay(repo.root, progress.todo);
  if (progress.neither.length > 0 || blocked.length > 0) {
    throw new PlanBlocked(progress.neither.map((w) => w.path), blocked);
  }
  let count = 0;
  const step = async (path: string) => {
    report.written.push(path);
    count += 1;
    await options.afterEach?.(count);
  };
  await withScratch(options, async (dir) => {
    const named = progress.todo.filter((w) => representable(w.path));
    const byGit = progress.todo.filter((w) => !representable(w.path));
    const writes = named.filter((w) => w.to !== null);
    // Fetch what goes in first, so a git failure leaves the tree untouched.
    const out = await checkoutInto(sys, repo, { ...options, dir, writes });
    for (const write of named.filter((w) => w.to === null)) {
      const abs = join(repo.root, write.path);
      if ((await lstatOrNull(abs))?.isDirectory) continue;
      await Deno.remove(abs).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
      await step(write.path);
    }
    const gone = byGit.filter((w) => w.to === null);
    await removeByGit(sys, repo, { ...options, dir: join(dir, "rm"), writes: gone });
    for (const write of gone) await step(write.path);
    for (const folder of plan.prune) {
      if (!representable(folder)) continue;
      const abs = join(repo.root, folder);
      if ((await lstatOrNull(abs))?.isDirectory !== true || (await hasEntries(abs))) continue;
      await Deno.remove(abs);
      report.pruned.push(folder);
    }
    for (const write of writes) {
      await placer.place(join(out, write.path), join(repo.root, write.path), write.to!.mode);
      await step(write.path);
    }
    const back = byGit.filter((w) => w.to !== null);
    await writeByGit(sys, repo, { ...options, dir: join(dir, "co"), writes: back });
    for (const write of back) await step(write.path);
  });
  return report;
}

/** The folders of `paths` (file paths relative to the root) that do not exist now. */
export async function missingFolders(root: string, paths: readonly string[]): Promise<string[]> {
  const missing = new Set<string>();
  const seen = new Set<string>();
  for (const path of paths) {
    if (!representable(path)) continue;
    for (let dir = dirname(path); dir !== "." && dir !== "/" && dir !== ""; dir = dirname(dir)) {
      if (seen.has(dir)) break;
      seen.add(dir);
      if ((await lstatOrNull(join(root, dir))) === null) missing.add(dir);
    }
  }
  return [...missing].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? -1 : 1));
}
