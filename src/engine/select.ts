/**
 * Selecting runs: the ones a caller named (ids, unique parts, `last`), a group's, or the live
 * and recent ones. Every record comes back reconciled (a dead supervisor's run is `lost`).
 */
import { reconcile } from "./liveness.ts";
import { listActive, listRecent, RECENT_KEEP } from "../store/active.ts";
import { statePaths } from "../store/paths.ts";
import type { RunRecord } from "../store/record.ts";
import { listRunIds, loadRecord, readRecord, resolveRunId } from "../store/runs.ts";
import type { Sys } from "../sys/mod.ts";
import { UsageError } from "../sys/errors.ts";

/** Loads the runs the user named (reconciled: dead supervisors become lost). */
export async function loadNamed(sys: Sys, typed: string[]): Promise<RunRecord[]> {
  const paths = statePaths(sys.stateDir);
  const out: RunRecord[] = [];
  for (const t of typed) {
    const id = await resolveRunId(paths, t);
    out.push(await reconcile(sys, await loadRecord(paths, id)));
  }
  return out;
}

/** Loads every run of a group. */
export async function loadGroup(sys: Sys, group: string): Promise<RunRecord[]> {
  const paths = statePaths(sys.stateDir);
  const out: RunRecord[] = [];
  for (const id of await listRunIds(paths)) {
    const r = await readRecord(paths, id);
    if (r?.group === group) out.push(await reconcile(sys, r));
  }
  if (out.length === 0) {
    throw new UsageError(`No runs in group "${group}"`, { hint: "list runs with `pitroom ls`" });
  }
  return out;
}

/** The live runs plus the `recent` newest, oldest first, without reading every record. */
export async function loadCurrent(sys: Sys, recent: number): Promise<RunRecord[]> {
  const paths = statePaths(sys.stateDir);
  const ids = new Set(await listActive(paths));
  const records = new Map<string, RunRecord>();
  if (recent > 0) {
    const marked = recent <= RECENT_KEEP ? await listRecent(paths) : null;
    const newest = marked ?? (await listRunIds(paths));
    const picked = newest.slice(-recent);
    // Ids sort by their second only: the runs of the oldest picked second compete by creation
    // time, or one made later in that second could lose its place to an earlier one.
    const second = picked[0]?.slice(0, 15);
    const tied = second === undefined ? [] : newest.filter((id) => id.startsWith(second));
    if (tied.length > 1) {
      const later = picked.filter((id) => !id.startsWith(second!));
      const contenders: RunRecord[] = [];
      for (const id of tied) {
        const r = await readRecord(paths, id);
        if (r) contenders.push(r);
      }
      contenders.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
      for (const r of contenders.slice(0, recent - later.length)) records.set(r.id, r);
      for (const id of later) ids.add(id);
      for (const id of records.keys()) ids.add(id);
    } else {
      for (const id of picked) ids.add(id);
    }
  }
  const out: RunRecord[] = [];
  for (const id of [...ids].sort()) {
    const r = records.get(id) ?? await readRecord(paths, id);
    if (r) out.push(await reconcile(sys, r));
  }
  return out;
}
