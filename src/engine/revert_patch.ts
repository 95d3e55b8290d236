/**
 * `revert` of a run whose run.json is damaged: its patch is undone in the repository the
 * history's copy of its record names (vcs/patch_undo.ts: checked first, refused when anything
 * changed since, said so when it is undone already). The patch holds the worker's files only,
 * so `--all` (the files changed beside the worker) needs the record and is refused. Nothing is
 * written to the run folder: the damaged file stays as it is, for the user to look at.
 */
import { readPatchChecked } from "../store/patch_file.ts";
import { statePaths } from "../store/paths.ts";
import type { RunRecord } from "../store/record.ts";
import { type DamagedRecord, RefusedError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import * as vcs from "../vcs/mod.ts";
import { historyCopy } from "./damage.ts";

/** Undoes the patch of the run `damage` names; the history's copy, as reverted, when done. */
export async function revertFromPatch(
  sys: Sys,
  damage: DamagedRecord,
  options: { all?: boolean },
): Promise<RunRecord> {
  const id = damage.run;
  const copy = await historyCopy(sys, id);
  // Without the copy nothing says where the run worked, or what its patch is to the tree.
  if (copy === null || copy.repoRoot === undefined || copy.changes === undefined) throw damage;
  if (copy.mode === "isolate" && copy.isolation?.applied === undefined) {
    throw new RefusedError(
      "not_applied",
      `Run "${id}" worked in a private copy and was not applied: your tree has none of its changes`,
    );
  }
  if (copy.mode === "read" || copy.changes.files.length === 0) {
    throw new RefusedError("nothing_to_revert", `Run "${id}" changed nothing Pitroom can revert`);
  }
  if (options.all && (copy.changes.others?.length ?? 0) > 0) {
    throw new RefusedError(
      "all_needs_record",
      `Run "${id}": --all needs its run.json (the files changed beside the worker are not in its patch)`,
      { hint: `undo the worker's own changes with \`pitroom revert ${id}\`` },
    );
  }
  const paths = statePaths(sys.stateDir);
  const patch = await readPatchChecked(paths.run(id).patch, copy.changes.patchDigest);
  if (patch.bytes === null || patch.damage !== null || patch.bytes.length === 0) throw damage;
  const repo = await vcs.findRepo(sys, copy.repoRoot);
  if (repo === null) {
    throw new RefusedError("no_repo", `"${copy.repoRoot}" is no longer a git repository`);
  }
  const store = { objectsDir: paths.repo(await vcs.repoKey(repo.root)).objects };
  // An applied isolate run: only the files its apply wrote (not those found already so).
  const applied = copy.mode === "isolate" ? copy.isolation?.applied?.files : undefined;
  const undone = new Set(
    await vcs.undoPatch(sys, repo, store, patch.bytes, {
      runId: id,
      ...(applied === undefined ? {} : { only: applied }),
    }),
  );
  if (undone.size === 0) {
    throw new RefusedError("nothing_to_revert", `Run "${id}": its patch holds none of its files`);
  }
  return {
    ...copy,
    changes: {
      ...copy.changes,
      files: copy.changes.files.filter((f) => undone.has(f.path)),
      others: [],
      reverted: true,
    },
  };
}
