/**
 * Finds the git repository around a directory: its work-tree root, git dir, common dir (shared
 * by linked worktrees), object store and index, all absolute. Only reads; never writes.
 */
import { RefusedError } from "../sys/errors.ts";
import { git, type GitSys } from "./git.ts";

/** A git repository with a work tree, as vcs/ sees it. */
export interface RepoInfo {
  /** The work tree's top directory (real path). Snapshot paths are relative to it. */
  root: string;
  /** This work tree's git dir (`.git`, or `.git/worktrees/<name>` for a linked worktree). */
  gitDir: string;
  /** The git dir shared by all worktrees of the repository. */
  commonDir: string;
  /** The user's object store, borrowed read-only. */
  objectsDir: string;
  /** The user's index file of this work tree (it may not exist yet). */
  indexFile: string;
  /** The hash the repository uses. */
  objectFormat: "sha1" | "sha256";
}

const QUERY = [
  "rev-parse",
  "--path-format=absolute",
  "--show-toplevel",
  "--git-dir",
  "--git-common-dir",
  "--git-path",
  "objects",
  "--git-path",
  "index",
  "--show-object-format",
];

/** Reads the answer to `QUERY`; null when it does not have its six lines. */
export function parseRepoQuery(stdout: string): Omit<RepoInfo, "root"> & { top: string } | null {
  const lines = stdout.replace(/\n$/, "").split("\n");
  if (lines.length !== 6) return null;
  const [top, gitDir, commonDir, objectsDir, indexFile, format] = lines as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (format !== "sha1" && format !== "sha256") return null;
  return { top, gitDir, commonDir, objectsDir, indexFile, objectFormat: format };
}

/** The same questions as `QUERY`, each alone (its answer is everything but the last newline). */
async function askOneByOne(
  sys: GitSys,
  dir: string,
): Promise<Omit<RepoInfo, "root"> & { top: string }> {
  const ask = async (...args: string[]) =>
    (await git(sys, ["rev-parse", "--path-format=absolute", ...args], { cwd: dir })).stdout
      .replace(/\n$/, "");
  const [top, gitDir, commonDir, objectsDir, indexFile, format] = await Promise.all([
    ask("--show-toplevel"),
    ask("--git-dir"),
    ask("--git-common-dir"),
    ask("--git-path", "objects"),
    ask("--git-path", "index"),
    ask("--show-object-format"),
  ]);
  if (format !== "sha1" && format !== "sha256") {
    throw new Error(`Unexpected "git rev-parse" output in "${dir}": object format "${format}"`);
  }
  return { top, gitDir, commonDir, objectsDir, indexFile, objectFormat: format };
}

const NOT_A_WORK_TREE = /not a git repository|must be run in a work tree/i;

/**
 * The repository whose work tree contains `dir`, or null when `dir` is in no work tree (not a
 * repository, a bare repository, or inside a `.git` folder).
 */
export async function findRepo(sys: GitSys, dir: string): Promise<RepoInfo | null> {
  const out = await git(sys, QUERY, { cwd: dir, okCodes: [0, 128] });
  if (out.code !== 0) {
    if (NOT_A_WORK_TREE.test(out.stderr)) return null;
    await git(sys, QUERY, { cwd: dir }); // throws GitError with git's message
  }
  // A path holding a newline makes more lines: then one question at a time, one answer each.
  const parsed = parseRepoQuery(out.stdout) ?? await askOneByOne(sys, dir);
  const { top, ...rest } = parsed;
  return { root: await Deno.realPath(top), ...rest };
}

/** Like `findRepo`, but a directory outside any work tree is refused with a hint. */
export async function requireRepo(sys: GitSys, dir: string): Promise<RepoInfo> {
  const repo = await findRepo(sys, dir);
  if (repo !== null) return repo;
  throw new RefusedError("not_a_git_repo", `Not inside a git work tree: "${dir}"`, {
    hint: "run `git init` first",
  });
}

/** A stable short key for the repository at `root`: 16 hex digits of the real path's SHA-256. */
export async function repoKey(root: string): Promise<string> {
  const real = await Deno.realPath(root);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(real));
  return Array.from(new Uint8Array(digest).subarray(0, 8), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** The user's HEAD commit, or null when the repository has none yet. */
export async function headCommit(sys: GitSys, repo: RepoInfo): Promise<string | null> {
  const out = await git(sys, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], {
    cwd: repo.root,
    env: { GIT_DIR: repo.gitDir, GIT_WORK_TREE: repo.root },
    okCodes: [0, 1],
  });
  return out.code === 0 ? out.stdout.trim() : null;
}
