/**
 * What revert does with a file the user changed too: a file changed since the run (or since the
 * apply) is merged three ways so only the worker's change goes; a file both changed during a
 * write run has the worker's segments merged out, last first. Where a merge cannot be made the
 * file is left as it is, named, and its versions are kept in the run folder (`kept/<path>/`:
 * `now`, `without-worker` and, for a conflicted merge, `conflicts`): revert never picks between
 * the user's lines and the worker's.
 */
import type { Changes, LeftFile, SharedFile } from "../../store/record.ts";
import { RefusedError } from "../../sys/errors.ts";
import { dirname, join } from "../../sys/path.ts";
import { type PlannedWrite, progressOf, type TreePlan, undoing } from "../../vcs/mod.ts";
import { encodeLossless, representable } from "../../vcs/lossless.ts";
import { carryNew, type RunTree } from "./journaled.ts";

/** The refusal of a revert that can take nothing out: every file is left, named. */
export function leftRefusal(id: string, left: readonly LeftFile[]): RefusedError {
  const shown = left.slice(0, 10).map((f) => `"${f.path}" (${f.why})`).join(", ");
  const more = left.length > 10 ? ` and ${left.length - 10} more` : "";
  return new RefusedError(
    "revert_left",
    `Cannot revert ${left.length} file(s) of run "${id}": the worker's changes cannot be taken out of them without yours: ${shown}${more}`,
    {
      hint: `${left.length === 1 ? "its" : "their"} versions are in ${
        left.length === 1 && left[0]!.kept
          ? `"${left[0]!.kept}"`
          : left[0]?.kept
          ? `"${keptRoot(left[0].kept, left[0].path)}"`
          : "the run folder"
      }; see \`pitroom show ${id} --patch\``,
    },
  );
}

/** The run's `kept/` folder, from one file's kept folder (`kept/<name>`). */
function keptRoot(kept: string, path: string): string {
  const name = keptName(path);
  return kept.endsWith(`/${name}`) ? kept.slice(0, -name.length - 1) : dirname(kept);
}

/** A name for a path's kept versions inside `kept/` (made up from it when it is not UTF-8). */
function keptName(path: string): string {
  if (representable(path) && !path.split("/").includes("..")) return path;
  let hash = 0x811c9dc5;
  for (const byte of encodeLossless(path)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return `file-${hash.toString(16).padStart(8, "0")}`;
}

/**
 * Keeps a file's versions in the run folder: as it is now, without the worker's change, and the
 * merge with its conflicts when there is one.
 */
async function keepVersions(
  { sys, record, tree }: RunTree,
  file: { path: string; now: Uint8Array | null; without: string | null; text?: Uint8Array },
): Promise<string> {
  const dir = join(sys.state.paths.run(record.id).kept, keptName(file.path));
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  if (file.now !== null) await Deno.writeFile(join(dir, "now"), file.now, { mode: 0o600 });
  const without = file.without === null ? null : await tree.blob(file.without);
  if (without !== null) await Deno.writeFile(join(dir, "without-worker"), without, { mode: 0o600 });
  if (file.text) await Deno.writeFile(join(dir, "conflicts"), file.text, { mode: 0o600 });
  return dir;
}

/**
 * Turns writes whose paths hold neither side (changed since) into three-way merges: the merged
 * file is written instead; a merge that cannot be made leaves the file, its versions kept.
 */
export async function mergeChanged(
  at: RunTree,
  writes: readonly PlannedWrite[],
  options: { since?: string } = {},
): Promise<{ writes: PlannedWrite[]; left: LeftFile[] }> {
  if (writes.length === 0) return { writes: [], left: [] };
  const { tree } = at;
  const since = options.since ?? "changed since the run";
  const current = await tree.keep(writes.map((w) => w.path));
  const results = await tree.merge(
    writes.map((w) => ({
      path: w.path,
      base: w.from,
      ours: current.get(w.path) ?? null,
      theirs: w.to,
    })),
    ["yours", "with the worker's change", "without it"],
  );
  const out: PlannedWrite[] = [];
  const left: LeftFile[] = [];
  for (const [i, result] of results.entries()) {
    const write = writes[i]!;
    if ("merged" in result) {
      out.push({ path: write.path, from: current.get(write.path) ?? null, to: result.merged });
      continue;
    }
    const abs = join(tree.root, write.path);
    const now = representable(write.path) ? await Deno.readFile(abs).catch(() => null) : null;
    const kept = await keepVersions(at, {
      path: write.path,
      now,
      without: write.to?.blob ?? null,
      ...(result.text ? { text: result.text } : {}),
    });
    left.push({ path: write.path, why: `${since}: ${result.conflict}`, kept });
  }
  return { writes: out, left };
}

/**
 * Takes the worker's segments out of files the user changed too: from the file as it is now,
 * each segment is merged away three ways (the version it left as the base, the version just
 * before it as theirs), last segment first. A file whose changes cannot be told apart, or whose
 * merge conflicts, is left as it is, its versions kept.
 */
export async function takeOutSegments(
  at: RunTree,
  shared: readonly SharedFile[],
): Promise<{ writes: PlannedWrite[]; left: LeftFile[] }> {
  if (shared.length === 0) return { writes: [], left: [] };
  const { tree } = at;
  const current = await tree.keep(shared.map((f) => f.path));
  const writes: PlannedWrite[] = [];
  const left: LeftFile[] = [];
  const keep = async (file: SharedFile, why: string, text?: Uint8Array) => {
    const abs = join(tree.root, file.path);
    const now = representable(file.path) ? await Deno.readFile(abs).catch(() => null) : null;
    const without = file.segments[0]?.before?.blob ?? null;
    const kept = await keepVersions(at, {
      path: file.path,
      now,
      without,
      ...(text ? { text } : {}),
    });
    left.push({ path: file.path, why, kept });
  };
  for (const file of shared) {
    const now = current.get(file.path) ?? null;
    if (file.unsure) {
      await keep(file, "you and the worker changed it too close together to tell the edits apart");
      continue;
    }
    let result: PlannedWrite["to"] = now;
    let conflict: { why: string; text?: Uint8Array } | null = null;
    for (const segment of [...file.segments].reverse()) {
      const [merge] = await tree.merge(
        [{ path: file.path, base: segment.after, ours: result, theirs: segment.before }],
        ["yours", "with the worker's change", "without it"],
      );
      if (merge === undefined || "conflict" in merge) {
        conflict = {
          why: merge?.conflict === "the changes overlap" || merge === undefined
            ? "your edits and the worker's overlap"
            : `your edits and the worker's: ${merge.conflict}`,
          ...(merge?.text ? { text: merge.text } : {}),
        };
        break;
      }
      result = merge.merged;
    }
    if (conflict !== null) await keep(file, conflict.why, conflict.text);
    else if (!sameEntry(result, now)) writes.push({ path: file.path, from: now, to: result });
  }
  return { writes, left };
}

function sameEntry(a: PlannedWrite["to"], b: PlannedWrite["to"]): boolean {
  return a === null ? b === null : b !== null && a.blob === b.blob && a.mode === b.mode;
}

/** The plan that takes `writes` out of the tree now: merges where files changed since. */
export async function settle(
  at: RunTree,
  plan: TreePlan,
): Promise<{ plan: TreePlan; left: LeftFile[] }> {
  const { now, fileMode } = await at.tree.states(plan.writes.map((w) => w.path));
  const progress = progressOf(plan, now, { fileMode });
  const merged = await mergeChanged(at, progress.neither, { since: "changed since the apply" });
  return {
    plan: { ...plan, writes: [...progress.done, ...progress.todo, ...merged.writes] },
    left: merged.left,
  };
}

/**
 * Undoes a read run's changes right after it (the read-only guard), journaled like a revert, so
 * a kill half-way is finished by `pitroom revert`.
 */
export async function undoReadRun(at: RunTree, changes: Changes): Promise<void> {
  const chosen = new Set(changes.files.map((f) => f.path));
  const planned = await at.tree.planRevert(changes.before, changes.after, { only: chosen });
  const merged = await mergeChanged(at, planned.changed.map(undoing));
  const plan: TreePlan = { ...planned.plan, writes: [...planned.plan.writes, ...merged.writes] };
  await carryNew(at, { action: "revert", scope: "worker", plan, left: merged.left });
  changes.reverted = true;
  if (merged.left.length > 0) changes.left = merged.left;
}
