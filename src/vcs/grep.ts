/**
 * Reading a work tree as it is now, for the answer checks: counting a fixed string with
 * `git grep` (tracked and untracked files, ignored ones left out, binary files skipped: how many
 * matches, matching lines and files), and listing its files the same way.
 */
import { git, type GitSys } from "./git.ts";

/** What `git grep` found for one string. */
export interface GrepCounts {
  occurrences: number;
  lines: number;
  files: number;
}

/** Options of `grepCounts`. */
export interface GrepOptions {
  /** The scope: a path relative to `root` ("" or "." for the whole tree). */
  scope: string;
  /** @default false */
  ignoreCase?: boolean;
}

/** Counts `text` (a fixed string, not a pattern) under `scope` of the work tree at `root`. */
export async function grepCounts(
  sys: GitSys,
  root: string,
  text: string,
  options: GrepOptions,
): Promise<GrepCounts> {
  const args = ["--literal-pathspecs", "grep", "--untracked", "-I", "-F", "-o", "-n", "-z"];
  if (options.ignoreCase === true) args.push("-i");
  args.push("-e", text, "--", options.scope === "" ? "." : options.scope);
  const out = await git(sys, args, { cwd: root, okCodes: [0, 1] });
  const files = new Set<string>();
  const lines = new Set<string>();
  let occurrences = 0;
  for (const row of out.stdout.split("\n")) {
    if (row === "") continue;
    const [file, line] = row.split("\0");
    occurrences++;
    files.add(file!);
    lines.add(`${file}\0${line}`);
  }
  return { occurrences, lines: lines.size, files: files.size };
}

/** Every file of the work tree at `root` (tracked and untracked, not ignored), root-relative. */
export async function workTreeFiles(sys: GitSys, root: string): Promise<string[]> {
  const args = ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate"];
  const out = await git(sys, args, { cwd: root });
  return out.stdout.split("\0").filter((path) => path !== "");
}
