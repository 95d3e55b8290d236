/**
 * Diffs for a review package, as text with more context than a patch: two snapshot trees (read
 * through Pitroom's object store), or a commit range from its merge base, with its commit list.
 * Read-only: nothing is written to the repository or the store.
 */
import { git, type GitSys } from "./git.ts";
import type { RepoInfo } from "./repo.ts";
import { type StoreOptions, trackingEnv } from "./store.ts";

const DIFF = ["--no-renames", "--no-textconv", "--no-ext-diff", "--no-color"];

/** The unified diff between two snapshot trees with `context` lines around each change. */
export async function treeDiffText(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { before: string; after: string; context: number },
): Promise<string> {
  if (options.before === options.after) return "";
  const out = await git(sys, [
    "diff-tree",
    "-r",
    "-p",
    `-U${options.context}`,
    ...DIFF,
    options.before,
    options.after,
  ], { cwd: repo.root, env: trackingEnv(repo, options) });
  return out.stdout;
}

/** A commit range: its merge base, head, commits (oldest first) and diff from the base. */
export interface RangeText {
  base: string;
  head: string;
  /** `abbrev subject`, oldest first. */
  commits: string[];
  diff: string;
}

/** The range `a...b` of a repository: the diff from the merge base with `context` lines. */
export async function rangeDiffText(
  sys: GitSys,
  root: string,
  options: { from: string; to: string; context: number },
): Promise<RangeText> {
  const call = { cwd: root };
  const verify = async (rev: string) =>
    (await git(sys, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`], call)).stdout.trim();
  const from = await verify(options.from);
  const head = await verify(options.to);
  const base = (await git(sys, ["merge-base", from, head], call)).stdout.trim();
  const log = await git(sys, ["log", "--reverse", "--format=%h %s", `${base}..${head}`], call);
  const diff = await git(sys, ["diff", `-U${options.context}`, ...DIFF, base, head], call);
  return {
    base,
    head,
    commits: log.stdout.split("\n").filter((l) => l.trim() !== ""),
    diff: diff.stdout,
  };
}
