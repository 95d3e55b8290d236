/**
 * Undoing a patch in the work tree with `git apply -R`: for a run whose record is damaged, its
 * patch (`git diff --binary --full-index` of the worker's files) is all that says what changed.
 * Checked first: nothing is written unless every hunk undoes cleanly, so a file changed since the
 * run refuses the whole undo; a patch whose changes are not in the tree (undone already) is said
 * so. git sees the bytes on disk (the conversions off, raw.ts), as the snapshots held them. The
 * user's index is never read or written.
 */
import { join } from "../sys/path.ts";
import { RefusedError } from "../sys/errors.ts";
import { git, type GitSys } from "./git.ts";
import type { RepoInfo } from "./repo.ts";
import { type StoreOptions, withScratch } from "./store.ts";
import { rawCommonDir, rawEnv } from "./raw.ts";

/** A path as a `git apply --include` pattern that matches only itself. */
function literal(path: string): string {
  return path.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}

/** What git said, in one line. */
function said(stderr: string): string {
  return stderr.trim().split("\n").slice(0, 2).join(" / ");
}

/**
 * Undoes `patch` in `repo`'s work tree; returns the paths it touched (relative to the root).
 * Refused, with nothing written, when the tree no longer holds exactly what the patch made.
 */
export async function undoPatch(
  sys: GitSys,
  repo: RepoInfo,
  store: StoreOptions,
  patch: Uint8Array,
  options: { runId: string; only?: readonly string[] },
): Promise<string[]> {
  const runId = options.runId;
  // Only these files of the patch (an apply that found some already as the patch leaves them
  // did not write those: they are the user's).
  const include = options.only?.map((path) => `--include=${literal(path)}`) ?? [];
  return await withScratch(store, async (dir) => {
    const file = join(dir, "patch.diff");
    await Deno.writeFile(file, patch, { mode: 0o600 });
    const call = { cwd: repo.root, env: rawEnv(repo, store, await rawCommonDir(repo, dir)) };
    const listed = await git(sys, ["apply", "--numstat", "-z", ...include, file], call);
    const paths = listed.stdout.split("\0").map((entry) => entry.split("\t")[2] ?? "")
      .filter((path) => path !== "");
    if (paths.length === 0) return [];
    const check = await git(sys, ["apply", "-R", "--check", ...include, file], {
      ...call,
      okCodes: [0, 1],
    });
    if (check.code !== 0) {
      const forward = await git(sys, ["apply", "--check", ...include, file], {
        ...call,
        okCodes: [0, 1],
      });
      if (forward.code === 0) {
        throw new RefusedError(
          "already_reverted",
          `Run "${runId}": its patch is not in the tree (undone already)`,
        );
      }
      throw new RefusedError(
        "changed_since",
        `Cannot revert run "${runId}" from its patch: its files changed since: ${
          said(check.stderr)
        }`,
        { hint: `inspect its patch with \`pitroom show ${runId} --patch\`` },
      );
    }
    await git(sys, ["apply", "-R", ...include, file], call);
    return paths;
  });
}
