/**
 * Submodules (and nested repositories `git add` records as gitlinks): a snapshot records only
 * which commit each one is at, never the files inside it, so an edit in an initialised
 * submodule would be neither reported nor undone. The snapshot before a write or isolate run
 * names them and the run is refused.
 */
import { join } from "../sys/path.ts";
import { RefusedError } from "../sys/errors.ts";
import { lstatOrNull } from "../sys/fs.ts";
import { git, type GitSys } from "./git.ts";
import type { RepoInfo } from "./repo.ts";
import { GITLINK } from "./worktree_state.ts";

/** Refusal: the work tree holds submodules whose files a snapshot cannot track. */
export class SubmodulesRefused extends RefusedError {
  readonly paths: string[];

  constructor(paths: string[]) {
    const shown = paths.slice(0, 5).map((path) => `"${path}"`).join(", ");
    const more = paths.length > 5 ? ` and ${paths.length - 5} more` : "";
    super(
      "submodules",
      `Cannot track changes inside submodules: the tree has ${paths.length} initialised submodule(s) or nested repositories: ${shown}${more}`,
      { hint: `run the task inside the submodule (\`cd "${paths[0]}"\`), or as a read run` },
    );
    this.paths = paths;
  }
}

/** Parses `git ls-files -s -z` into the gitlink paths. */
export function gitlinksOf(stdout: string): string[] {
  return stdout.split("\0").filter((record) => record.startsWith(`${GITLINK} `)).map((record) =>
    record.slice(record.indexOf("\t") + 1)
  );
}

/**
 * The gitlinks of the index at `env`'s `GIT_INDEX_FILE` that hold a repository on disk (an
 * initialised submodule or a nested repository). Listed only when the tree has a `.gitmodules`
 * or `git add` said it added a nested repository (`addStderr`); otherwise none, at no cost.
 */
export async function initialisedSubmodules(
  sys: GitSys,
  repo: RepoInfo,
  options: { env: Record<string, string>; addStderr: string },
): Promise<string[]> {
  const marked = await lstatOrNull(join(repo.root, ".gitmodules")) !== null ||
    options.addStderr.includes("embedded git repository");
  if (!marked) return [];
  const out = await git(sys, ["ls-files", "-s", "-z"], { cwd: repo.root, env: options.env });
  const found: string[] = [];
  for (const path of gitlinksOf(out.stdout)) {
    if (await lstatOrNull(join(repo.root, path, ".git")) !== null) found.push(path);
  }
  return found;
}
