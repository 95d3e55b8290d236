/**
 * Undoing a patch in the work tree: for a run whose record is damaged, its patch (`git diff
 * --binary --full-index` of the worker's files) is all that says what changed. Checked first with
 * `git apply -R --check` on the tree: nothing is planned unless every hunk undoes cleanly, so a
 * file changed since the run refuses the whole undo; a patch whose changes are not in the tree
 * (undone already) is said so. The undo itself is not `git apply` writing the tree (it writes a
 * file in place, and a kill leaves it torn): the files as they are now go into Pitroom's store
 * and a throwaway index, the patch is undone there (`git apply -R --cached`), and the difference
 * is a plan of writes (`tree_plan.ts`) that the caller journals and carries out, each file
 * atomically. git sees the bytes on disk (the conversions off, raw.ts), as the snapshots held
 * them. The user's index is never read or written.
 */
import { join } from "../sys/path.ts";
import { RefusedError } from "../sys/errors.ts";
import { git, type GitSys, nulList } from "./git.ts";
import type { RepoInfo } from "./repo.ts";
import { type StoreOptions, withScratch } from "./store.ts";
import { rawCommonDir, rawEnv } from "./raw.ts";
import { carryOut, missingFolders } from "./carry_out.ts";
import { parentsDeepestFirst, type PlannedWrite, type TreePlan } from "./tree_plan.ts";
import { type Entry, keepFiles } from "./worktree_state.ts";

/** A path as a `git apply --include` pattern that matches only itself. */
function literal(path: string): string {
  return path.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}

/** What git said, in one line. */
function said(stderr: string): string {
  return stderr.trim().split("\n").slice(0, 2).join(" / ");
}

/** Options of `planPatchUndo` and `undoPatch`. */
export interface PatchUndoOptions {
  /** The run whose patch it is, named in refusals. */
  runId: string;
  /** Only these files of the patch (the default is every file). */
  only?: readonly string[];
}

/** Parses `ls-files -s -z` into entries by path (files, symlinks and gitlinks alike). */
function stagedEntries(stdout: string): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const record of stdout.split("\0")) {
    const match = /^(\d{6}) ([0-9a-f]+) 0\t(.*)$/s.exec(record);
    if (match !== null) out.set(match[3]!, { mode: match[1]!, blob: match[2]! });
  }
  return out;
}

/**
 * Plans undoing `patch` in `repo`'s work tree: each of its files from what it holds now to what
 * it held before the patch. Refused, with nothing written, when the tree no longer holds exactly
 * what the patch made (or holds none of it: undone already). An empty plan: the patch names none
 * of the files asked for.
 */
export async function planPatchUndo(
  sys: GitSys,
  repo: RepoInfo,
  store: StoreOptions,
  patch: Uint8Array,
  options: PatchUndoOptions,
): Promise<TreePlan> {
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
    if (paths.length === 0) return { writes: [], prune: [], made: [] };
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
    // The files as they are now, in Pitroom's store and a throwaway index; the patch undone there.
    const now = await keepFiles(sys, repo, { ...store, paths });
    const indexed = { ...call, env: { ...call.env, GIT_INDEX_FILE: join(dir, "index") } };
    const records = [...now].flatMap(([path, entry]) =>
      entry === null ? [] : [`${entry.mode} ${entry.blob}\t${path}`]
    );
    await git(sys, ["update-index", "-z", "--index-info"], {
      ...indexed,
      stdin: nulList(records),
    });
    await git(sys, ["apply", "-R", "--cached", ...include, file], indexed);
    const undone = stagedEntries((await git(sys, ["ls-files", "-s", "-z"], indexed)).stdout);
    const writes: PlannedWrite[] = [];
    for (const path of paths) {
      const from = now.get(path) ?? null;
      const to = undone.get(path) ?? null;
      const same = from === null
        ? to === null
        : to !== null && from.mode === to.mode && from.blob === to.blob;
      if (!same) writes.push({ path, from, to });
    }
    const removed = writes.filter((w) => w.to === null).map((w) => w.path);
    const restored = writes.filter((w) => w.from === null).map((w) => w.path);
    return {
      writes,
      // Folders its removals empty go (as `git apply` removes them); carry-out keeps any other.
      prune: parentsDeepestFirst(removed),
      made: await missingFolders(repo.root, restored),
    };
  });
}

/**
 * Undoes `patch` in `repo`'s work tree, each file atomically (not journaled: the engine journals
 * the plan itself); returns the paths it touched (relative to the root). Refused, with nothing
 * written, when the tree no longer holds exactly what the patch made.
 */
export async function undoPatch(
  sys: GitSys,
  repo: RepoInfo,
  store: StoreOptions,
  patch: Uint8Array,
  options: PatchUndoOptions,
): Promise<string[]> {
  const plan = await planPatchUndo(sys, repo, store, patch, options);
  await carryOut(sys, repo, { ...store, plan, tag: "patch-undo" });
  return plan.writes.map((w) => w.path);
}
