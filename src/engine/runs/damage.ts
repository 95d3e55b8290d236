/**
 * Damaged records: the history's copy of a run whose `run.json` cannot be read, and what still
 * works when a file of a run is damaged, for the one line that names it. What works is worked
 * out from the files that are whole: the record (the report, and revert and apply, which work
 * from the snapshots it names), the patch, the events, the history's copy.
 */
import type { HeldSys } from "../../store/state.ts";
import { readEventsChecked } from "../../store/events_file.ts";
import { readPatchChecked } from "../../store/patch_file.ts";
import type { RunRecord } from "../../store/record.ts";
import { DamagedRecord } from "../../sys/errors.ts";
import { exists } from "../../sys/fs.ts";
import { MODES } from "../../workers/modes.ts";

/** The record of run `id` as the history keeps it, or null (no history, no copy, a bad row). */
export async function historyCopy(sys: HeldSys, id: string): Promise<RunRecord | null> {
  if (!(await exists(sys.state.paths.history))) return null;
  const { keptRun } = await import("./history_copy.ts");
  const { withHistory } = await import("../../store/history/ready.ts");
  try {
    return await withHistory(sys, (db) => keptRun(db, id)?.record ?? null);
  } catch (error) {
    // The history's own row is damaged: it has no copy to give.
    if (error instanceof DamagedRecord) return null;
    throw error;
  }
}

/** True when the patch file is there, has something in it and matches the record's digest. */
async function patchReadable(path: string, record: RunRecord | null): Promise<boolean> {
  const read = await readPatchChecked(path, record?.changes?.patchDigest);
  return read.bytes !== null && read.bytes.length > 0 && read.damage === null;
}

/** The change commands a whole record still allows. */
function changeCommands(record: RunRecord): string[] {
  const changes = record.changes;
  if (changes === undefined || changes.files.length === 0) return [];
  const id = record.id;
  if (MODES[record.mode].usesCopy && record.isolation?.applied === undefined) {
    return record.isolation?.discarded === undefined ? [`\`pitroom apply ${id}\``] : [];
  }
  return changes.reverted ? [] : [`\`pitroom revert ${id}\``];
}

/** What still works for run `damage.run` given which of its files is damaged. */
export async function stillWorks(sys: HeldSys, damage: DamagedRecord): Promise<string[]> {
  const id = damage.run;
  const paths = sys.state.paths.run(id);
  const works: string[] = [];
  if (damage.file === "run.json") {
    const copy = await historyCopy(sys, id);
    if (copy !== null) works.push(`\`pitroom show ${id}\` (from the history)`);
    if (await patchReadable(paths.patch, copy)) {
      works.push(`\`pitroom show ${id} --patch\``);
      // The copy says where the run worked and that its changes are in the tree.
      const revertable = copy !== null && copy.repoRoot !== undefined &&
        changeCommands(copy).some((c) => c.includes("revert"));
      if (revertable) works.push(`\`pitroom revert ${id}\` (from its patch)`);
    }
    const events = await readEventsChecked(paths.events);
    if (events.file !== null && events.damage === null) {
      works.push(`\`pitroom show ${id} --events\``);
    }
    return works;
  }
  const record = (await sys.state.runs.checked(id)).record;
  if (record === null) return works;
  works.push(`\`pitroom show ${id}\``);
  if (damage.file !== "patch.diff" && (await patchReadable(paths.patch, record))) {
    works.push(`\`pitroom show ${id} --patch\``);
  }
  if (damage.file === "patch.diff") {
    const events = await readEventsChecked(paths.events);
    if (events.damage === null) works.push(`\`pitroom show ${id} --events\``);
  }
  works.push(...changeCommands(record));
  if (damage.file === "history.db") works.push("`pitroom history import` (rebuilds its row)");
  return works;
}

/** `damage` with what still works put in (as it is when it says so already). */
export async function explained(sys: HeldSys, damage: DamagedRecord): Promise<DamagedRecord> {
  if (damage.works.length > 0) return damage;
  const works = await stillWorks(sys, damage);
  return works.length === 0 ? damage : damage.withWorks(works);
}
