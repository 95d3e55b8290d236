/**
 * A private copy of a work tree at a snapshot: its own repository (a `.git` folder written here,
 * not `git init`, not `git worktree add`) whose object store borrows the user's objects and
 * Pitroom's snapshot objects read-only as alternates, checked out at the snapshot's tree. Nothing
 * is written into the user's repository: no worktree is registered, no branch is made. Its HEAD
 * is the user's HEAD commit (detached), so `git log` and `git diff HEAD` work inside the copy.
 *
 * Ignored folders the worker needs (`node_modules`, `.venv`) can be linked in: each becomes a
 * symlink to the user's folder, excluded in the copy so it never shows in a snapshot or patch.
 */
import { dirname, join } from "../sys/path.ts";
import { lstatOrNull } from "../sys/fs.ts";
import { UsageError } from "../sys/errors.ts";
import { git, type GitSys } from "./git.ts";
import type { RepoInfo } from "./repo.ts";
import type { Snapshot } from "./snapshot.ts";
import { isUnderIgnored } from "./snapshot.ts";
import { quoteAlternate, type StoreOptions, withScratch } from "./store.ts";
import { rawCommonDir } from "./raw.ts";

/** Options of `makeCopy`. */
export interface CopyOptions extends StoreOptions {
  /** Where the copy goes; it must not exist yet. */
  dest: string;
  /** The state to check out (its tree is in Pitroom's store or the user's). */
  snapshot: Snapshot;
  /** Ignored folders to link in, relative to the root (`node_modules`, `web/.venv`). */
  links?: readonly string[];
}

/** The repository of a copy made at `dest`. */
export function copyRepo(dest: string, objectFormat: RepoInfo["objectFormat"]): RepoInfo {
  const gitDir = join(dest, ".git");
  return {
    root: dest,
    gitDir,
    commonDir: gitDir,
    objectsDir: join(gitDir, "objects"),
    indexFile: join(gitDir, "index"),
    objectFormat,
  };
}

/** The `.git/config` of a copy (pure). */
export function copyConfig(objectFormat: RepoInfo["objectFormat"]): string {
  const lines = ["[core]"];
  lines.push(`\trepositoryformatversion = ${objectFormat === "sha256" ? 1 : 0}`);
  lines.push("\tfilemode = true", "\tbare = false", "\tlogallrefupdates = false");
  if (objectFormat === "sha256") lines.push("[extensions]", "\tobjectformat = sha256");
  return lines.join("\n") + "\n";
}

/** Checks that each link is a plain relative path to an ignored folder; returns them cleaned. */
export function checkLinks(links: readonly string[], ignored: readonly string[]): string[] {
  const clean: string[] = [];
  for (const raw of links) {
    const link = raw.replace(/\/+$/, "");
    if (
      link === "" || link.startsWith("/") ||
      link.split("/").some((part) => part === ".." || part === "." || part === ".git")
    ) {
      throw new UsageError(`--link "${raw}" must be a folder inside the repository`);
    }
    if (!isUnderIgnored(`${link}/`, ignored) && !isUnderIgnored(link, ignored)) {
      throw new UsageError(
        `--link "${raw}" is not an ignored folder: only ignored folders (node_modules, .venv) can be linked`,
        { hint: "tracked and untracked files are copied anyway" },
      );
    }
    clean.push(link);
  }
  return clean;
}

/** Writes the copy's `.git`: config, detached HEAD, alternates, and the user's excludes. */
async function writeGitDir(
  repo: RepoInfo,
  copy: RepoInfo,
  options: CopyOptions,
  links: readonly string[],
): Promise<void> {
  const gitDir = copy.gitDir;
  await Deno.mkdir(join(gitDir, "objects", "info"), { recursive: true, mode: 0o700 });
  await Deno.mkdir(join(gitDir, "refs", "heads"), { recursive: true });
  await Deno.mkdir(join(gitDir, "refs", "tags"), { recursive: true });
  await Deno.mkdir(join(gitDir, "info"), { recursive: true });
  await Deno.writeTextFile(join(gitDir, "config"), copyConfig(repo.objectFormat));
  const head = options.snapshot.head;
  await Deno.writeTextFile(join(gitDir, "HEAD"), head ? `${head}\n` : "ref: refs/heads/main\n");
  await Deno.writeTextFile(
    join(gitDir, "objects", "info", "alternates"),
    // One a line: a path holding a line break is quoted (git unquotes it).
    `${quoteAlternate(repo.objectsDir)}\n${quoteAlternate(options.objectsDir)}\n`,
  );
  let exclude = "";
  try {
    exclude = await Deno.readTextFile(join(repo.commonDir, "info", "exclude"));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const linked = links.map((link) => `/${link}`).join("\n");
  const text = [exclude.trimEnd(), linked].filter((part) => part !== "").join("\n");
  await Deno.writeTextFile(join(gitDir, "info", "exclude"), text === "" ? "" : `${text}\n`);
}

/**
 * Makes the copy: `.git` first, then the snapshot's tree read into the copy's index and checked
 * out, then the links. Returns the copy's repository. On failure the half-made copy is removed.
 */
export async function makeCopy(
  sys: GitSys,
  repo: RepoInfo,
  options: CopyOptions,
): Promise<RepoInfo> {
  if (await lstatOrNull(options.dest) !== null) {
    throw new Error(`The copy "${options.dest}" exists already`);
  }
  const links = checkLinks(options.links ?? [], options.snapshot.ignored);
  const copy = copyRepo(options.dest, repo.objectFormat);
  await Deno.mkdir(options.dest, { recursive: true, mode: 0o700 });
  try {
    await writeGitDir(repo, copy, options, links);
    await withScratch(options, async (dir) => {
      // The snapshot holds the bytes that were on disk: checked out as they are, no filter or
      // line-ending rule (the copy's own git, the worker's, keeps the repository's rules).
      const call = {
        cwd: copy.root,
        env: {
          GIT_DIR: copy.gitDir,
          GIT_WORK_TREE: copy.root,
          GIT_COMMON_DIR: await rawCommonDir(copy, dir),
          GIT_OBJECT_DIRECTORY: copy.objectsDir,
        },
      };
      // One-tree read with -u checks every file out and leaves a fresh, stat-complete index.
      // Parallel checkout (one worker per core) hides the file system's per-file latency: on a
      // 31,000-file tree it took 2-4 s where one process took 7-12 s (benchmarks/tree).
      await git(sys, [
        "-c",
        "checkout.workers=0",
        "read-tree",
        "-u",
        "--reset",
        options.snapshot.tree,
      ], call);
    });
    for (const link of links) {
      const target = join(repo.root, link);
      if (await lstatOrNull(target) === null) continue;
      const at = join(copy.root, link);
      await Deno.mkdir(dirname(at), { recursive: true });
      await Deno.symlink(target, at);
    }
    return copy;
  } catch (error) {
    await Deno.remove(options.dest, { recursive: true }).catch(() => undefined);
    throw error;
  }
}
