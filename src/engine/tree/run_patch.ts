/**
 * A write run's patch: the worker's files whole, and of a file the user changed too only the
 * worker's segments (each from the version just before its edit to the one it left), so the
 * user's lines never show as the worker's. A file whose changes cannot be told apart shows whole.
 */
import type { Changes } from "../../store/record.ts";
import type { TrackedTree } from "./tree.ts";

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The run's patch (and the worker's line counts of its shared files, set in `changes`). */
export async function runPatch(
  work: TrackedTree,
  changes: Changes,
  whole: Uint8Array,
): Promise<Uint8Array> {
  const shared = changes.shared ?? [];
  if (changes.others === undefined && shared.length === 0) return whole;
  const split = new Set(shared.filter((f) => !f.unsure).map((f) => f.path));
  const plain = changes.files.filter((f) => !split.has(f.path)).map((f) => f.path);
  const parts = [await work.patch(changes.before, changes.after, plain)];
  for (const file of shared) {
    if (file.unsure) continue;
    let added = 0;
    let removed = 0;
    let binary = false;
    for (const segment of file.segments) {
      const one = await work.patchOf(file.path, segment.before, segment.after);
      parts.push(one.patch);
      added += one.added;
      removed += one.removed;
      binary ||= one.binary;
    }
    const counted = changes.files.find((f) => f.path === file.path);
    if (counted !== undefined) Object.assign(counted, { added, removed, binary });
  }
  return concat(parts);
}
