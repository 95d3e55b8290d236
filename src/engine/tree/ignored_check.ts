/**
 * Ignored files around a run: their stat is recorded before the worker (small ones kept for a
 * read run), and after it a change is undone and made a read-only violation for a read run, or
 * listed apart for a write or isolate run (ignored files are never in the patch).
 */
import type { RunRecord } from "../../store/record.ts";
import { KEEP_FILE_MAX } from "../../vcs/ignored.ts";
import type { IgnoredWatch } from "./tree.ts";
import { MODES } from "../../workers/modes.ts";

function listed(paths: string[]): string {
  const shown = paths.slice(0, 10).map((path) => `"${path}"`).join(", ");
  return paths.length > 10 ? `${shown} and ${paths.length - 10} more` : shown;
}

/**
 * Checks the ignored files after the worker. For a read run that changed any, undoes what was
 * kept and returns the violation message; for other runs adds a note to `record` and returns
 * null; null when nothing changed.
 */
export async function checkIgnored(
  record: RunRecord,
  watch: IgnoredWatch | undefined,
): Promise<string | null> {
  if (watch === undefined) return null;
  const changes = await watch.changes();
  const all = [...changes.changed, ...changes.added, ...changes.removed].sort();
  if (all.length === 0) return null;
  if (MODES[record.mode].keepsChanges) {
    record.notes = [
      ...(record.notes ?? []),
      `Changed ignored files, not in the patch: ${listed(all)}`,
    ];
    return null;
  }
  const restored = await watch.restore(changes);
  const left = restored.notKept.length === 0
    ? "undone"
    : `undone but for ${listed(restored.notKept)} (larger than ${
      KEEP_FILE_MAX / 1024
    } KiB, or over what a run keeps: left as the worker left them)`;
  return `The worker changed ${all.length} ignored file(s) in a read-only run: ${
    listed(all)
  }: ${left}`;
}
