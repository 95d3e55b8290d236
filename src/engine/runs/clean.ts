/**
 * `pitroom clean`: removing old run folders once the history keeps them. Never a live run (its
 * supervisor holds the run's lock, or its record is not final) and never an isolate run whose
 * patch was not applied: its folder is the only place the patch can be applied from. Each run is
 * indexed once more, from its folder, just before the folder goes.
 */
import type { HeldSys } from "../../store/state.ts";
import type { DatabaseSync } from "node:sqlite";
import { isLocked, tryLock } from "../../store/locks.ts";
import { isFinal, type RunRecord } from "../../store/record.ts";
import { exists, removeIfThere } from "../../sys/fs.ts";
import { join } from "../../sys/path.ts";
import { readRunFiles } from "../../store/history/files.ts";
import { RunWriter } from "../../store/history/write.ts";

/** Why an old run folder stays (a damaged run.json: whatever its age, nothing says it). */
export type KeepReason = "live" | "unapplied-patch" | "damaged-record";

/** What clean decides about one run folder (pure). */
function verdict(record: RunRecord, cutoff: number): "remove" | "recent" | KeepReason {
  if (!isFinal(record.state)) return "live";
  if (record.isolation !== undefined && record.isolation.applied === undefined) {
    return "unapplied-patch";
  }
  return (record.endedAt ?? record.createdAt) < cutoff ? "remove" : "recent";
}

/** A run folder clean removes (or would). */
export interface CleanItem {
  id: string;
  state: string;
  endedAt: number | null;
  task: string;
  bytes: number;
}

/** What clean found. */
export interface CleanPlan {
  cutoff: number;
  remove: CleanItem[];
  /** Old runs that stay, and why. */
  keep: { id: string; reason: KeepReason }[];
}

async function sizeOf(path: string): Promise<number> {
  let total = 0;
  try {
    for await (const entry of Deno.readDir(path)) {
      const child = join(path, entry.name);
      if (entry.isDirectory) total += await sizeOf(child);
      else total += (await Deno.lstat(child)).size;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return total;
}

/** Options of `planClean`. */
export interface PlanOptions {
  /** Runs that ended before this time (ms) are old. */
  cutoff: number;
  /** Brings a record up to date first (the CLI marks runs of dead supervisors lost). */
  reconcile?(record: RunRecord): Promise<RunRecord>;
}

/** Lists the run folders clean would remove. */
export async function planClean(sys: HeldSys, options: PlanOptions): Promise<CleanPlan> {
  const paths = sys.state.paths;
  const plan: CleanPlan = { cutoff: options.cutoff, remove: [], keep: [] };
  for (const id of await sys.state.runs.ids()) {
    const checked = await sys.state.runs.checked(id);
    const read = checked.record;
    // A folder without run.json may be a run being created; one with a damaged run.json is the
    // run's only trace of its record: both stay, the damaged one named.
    if (read === null) {
      if (checked.damage !== null && checked.damage !== "missing") {
        plan.keep.push({ id, reason: "damaged-record" });
      }
      continue;
    }
    if (read.createdAt >= options.cutoff) continue;
    const record = options.reconcile ? await options.reconcile(read) : read;
    let what = verdict(record, options.cutoff);
    if (what === "remove" && (await isLocked(paths.run(id).supervisorLock))) what = "live";
    if (what === "recent") continue;
    if (what !== "remove") plan.keep.push({ id, reason: what });
    else {
      plan.remove.push({
        id,
        state: record.state,
        endedAt: record.endedAt ?? null,
        task: record.task,
        bytes: await sizeOf(paths.run(id).dir),
      });
    }
  }
  return plan;
}

/** What removing did. */
export interface CleanResult {
  removed: CleanItem[];
  /** Private copies removed because no remaining run refers to them. */
  copiesRemoved?: string[];
  /** Runs that changed since the plan (started again, became live) and stayed. */
  skipped: { id: string; reason: KeepReason | "changed" }[];
}

/**
 * Removes the planned folders. Each run is checked again while its lock is held (so no
 * supervisor can start on it), indexed from its folder into `db`, and only then removed.
 */
export async function removeRuns(
  sys: HeldSys,
  db: DatabaseSync,
  plan: CleanPlan,
): Promise<CleanResult> {
  const paths = sys.state.paths;
  const writer = new RunWriter(db);
  const result: CleanResult = { removed: [], skipped: [] };
  for (const item of plan.remove) {
    const runPaths = paths.run(item.id);
    using lock = await tryLock(runPaths.supervisorLock);
    if (lock === null) {
      result.skipped.push({ id: item.id, reason: "live" });
      continue;
    }
    const record = await sys.state.runs.read(item.id);
    const what = record === null ? "recent" : verdict(record, plan.cutoff);
    if (record === null || what === "recent") {
      result.skipped.push({ id: item.id, reason: "changed" });
      continue;
    }
    if (what !== "remove") {
      result.skipped.push({ id: item.id, reason: what });
      continue;
    }
    writer.write([await readRunFiles(paths, record)]);
    await removeIfThere(runPaths.dir);
    result.removed.push(item);
  }
  if (result.removed.length > 0) result.copiesRemoved = await removeOrphanCopies(sys);
  return result;
}

/**
 * Removes the private copies (isolate runs) that no remaining run folder refers to: a copy
 * serves its run and that run's follow-ups, so it goes with the last of them.
 */
async function removeOrphanCopies(sys: HeldSys): Promise<string[]> {
  const paths = sys.state.paths;
  const used = new Set<string>();
  for (const id of await sys.state.runs.ids()) {
    const read = await sys.state.runs.checked(id);
    // A damaged record may be the one that still uses a copy: then none is removed.
    if (read.record === null && read.damage !== null && read.damage !== "missing") return [];
    const copy = read.record?.isolation?.copyRoot;
    if (copy !== undefined) used.add(copy);
  }
  const removed: string[] = [];
  try {
    for (const entry of Deno.readDirSync(paths.copies)) {
      const dir = join(paths.copies, entry.name);
      // A copy is named after the run that made it; a run created since the scan keeps its own.
      if (used.has(dir) || (await exists(paths.run(entry.name).dir))) continue;
      await removeIfThere(dir);
      removed.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return removed;
}
