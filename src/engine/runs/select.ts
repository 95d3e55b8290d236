/**
 * Selecting runs: the ones a caller named (a full id, a unique part of one, `last`), a group's,
 * or the live and recent ones, among the runs of the caller's scope (scope.ts; null: every
 * repository's). A full id names its run wherever it worked; anything else picks only among the
 * scope's runs. Every record comes back as seen (a dead supervisor's run reads `lost`; reads
 * write nothing: the sweep marks it, host/liveness.ts). A
 * damaged record is named (`DamagedRecord`), never passed over where it could be the run meant.
 */
import type { HeldSys } from "../../store/state.ts";
import { asSeen } from "../host/liveness.ts";
import { listActive, listRecent, RECENT_KEEP } from "../../store/active.ts";
import { isRunId } from "../../store/paths.ts";
import type { RunRecord } from "../../store/record.ts";
import { damagedRunJson } from "../../store/runs.ts";
import type { DamagedRecord } from "../../sys/errors.ts";
import { UsageError } from "../../sys/errors.ts";
import { inScope, placeOf, type Scope, scopeName } from "../core/scope.ts";
import { historyCopy } from "./damage.ts";

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** The scope, or what finds it when it is needed (a full id needs none). */
export type ScopeOf = Scope | null | (() => Promise<Scope | null>);

/** A run read for selection: its record, or the damage of its run.json (null: not there). */
type Read = { id: string; record: RunRecord | null; damage: DamagedRecord | null };

/** One run's record for selection (read synchronously: a scan may read every folder). */
function readOne(sys: HeldSys, id: string): Read {
  const read = sys.state.runs.checkedSync(id);
  if (read.record !== null) return { id, record: read.record, damage: null };
  // A folder without run.json at all is a run being created (or one whose creation died).
  if (read.damage === null || read.damage === "missing") return { id, record: null, damage: null };
  return { id, record: null, damage: damagedRunJson(id, read.damage) };
}

/**
 * Whether a run belongs to the scope: by its record, or for a damaged record by the history's
 * copy of it (null when neither can tell).
 */
async function belongs(sys: HeldSys, read: Read, scope: Scope | null): Promise<boolean | null> {
  if (scope === null) return true;
  if (read.record !== null) return inScope(scope, read.record);
  const copy = await historyCopy(sys, read.id);
  return copy === null ? null : inScope(scope, copy);
}

function noRunsHint(scope: Scope | null, others: boolean): { hint: string } {
  if (scope !== null && others) {
    return { hint: "`pitroom ls --all` lists every repository's runs: name one by its full id" };
  }
  return { hint: 'start one with `pitroom run "task"`' };
}

/** The second a run id was made in (`YYYYMMDD-HHMMSS`). */
function secondOf(id: string): string {
  return id.slice(0, 15);
}

/**
 * The newest run of the scope that is not an audit (an audit started after a run never takes
 * its place). A newer run whose record is damaged and that may be the scope's stops the search:
 * `last` would otherwise silently mean an older run.
 */
async function lastOf(sys: HeldSys, ids: string[], scope: Scope | null): Promise<string> {
  let newest: RunRecord | null = null;
  for (let i = ids.length - 1; i >= 0; i--) {
    // Ids sort by the second they were made in, their random part after it: once a run is
    // found, only runs of that same second can be newer (by the time they were created).
    if (newest !== null && secondOf(ids[i]!) !== secondOf(newest.id)) break;
    const read = readOne(sys, ids[i]!);
    if (read.record === null && read.damage === null) continue;
    const ours = await belongs(sys, read, scope);
    if (ours === false) continue;
    if (read.damage !== null) throw read.damage;
    const record = read.record!;
    if (record.auditOf !== undefined) continue;
    if (newest === null || record.createdAt > newest.createdAt) newest = record;
  }
  if (newest !== null) return newest.id;
  if (scope !== null && ids.length > 0) {
    throw new UsageError(`No runs in ${scopeName(scope)} yet`, noRunsHint(scope, true));
  }
  throw new UsageError("No runs yet", noRunsHint(scope, false));
}

/**
 * Resolves what a user typed to a run id: a full id (any repository's), `last`, or a unique
 * prefix or suffix of an id among the scope's runs.
 */
export async function resolveRun(sys: HeldSys, typed: string, scopeOf: ScopeOf): Promise<string> {
  const paths = sys.state.paths;
  // A full id names only itself (ids have one length): no need to list a large folder, nor to
  // ask git where the caller stands.
  if (isRunId(typed) && (await isDir(paths.run(typed).dir))) return typed;
  const scope = typeof scopeOf === "function" ? await scopeOf() : scopeOf;
  const ids = await sys.state.runs.ids();
  if (typed === "last") return await lastOf(sys, ids, scope);
  const matches = ids.filter((id) => id.endsWith(typed) || id.startsWith(typed));
  const ours: Read[] = [];
  const others: Read[] = [];
  for (const id of matches) {
    const read = readOne(sys, id);
    if (read.record === null && read.damage === null) continue;
    if ((await belongs(sys, read, scope)) === false) others.push(read);
    else ours.push(read);
  }
  if (ours.length === 1) {
    if (ours[0]!.damage !== null) throw ours[0]!.damage;
    return ours[0]!.id;
  }
  if (ours.length > 1) {
    throw new UsageError(`Run "${typed}" is ambiguous: ${ours.length} runs match`, {
      hint: "give more of the id",
    });
  }
  if (others.length > 0 && scope !== null) {
    const one = others.length === 1 ? others[0]! : null;
    const where = one?.record ? ` of "${placeOf(one.record)}"` : "";
    throw new UsageError(
      `No run "${typed}" in ${scopeName(scope)}: ${
        one ? `it names run "${one.id}"${where}` : `${others.length} runs of other places match`
      }`,
      {
        hint: one
          ? `a run of another repository is reached by its full id: ${one.id}`
          : "a run of another repository is reached by its full id (`pitroom ls --all`)",
      },
    );
  }
  throw new UsageError(`No run "${typed}"`, { hint: "list runs with `pitroom ls`" });
}

/** Loads the runs the user named (as seen: a dead supervisor's run reads as lost). */
export async function loadNamed(
  sys: HeldSys,
  typed: readonly string[],
  scope: ScopeOf,
): Promise<RunRecord[]> {
  const out: RunRecord[] = [];
  for (const t of typed) {
    const id = await resolveRun(sys, t, scope);
    out.push(await asSeen(sys, await sys.state.runs.load(id)));
  }
  return out;
}

/**
 * Loads every run of a group in the scope; a group with runs only elsewhere is named. The
 * damaged records met are added to `damaged` (the history's copy places them when it can).
 */
export async function loadGroup(
  sys: HeldSys,
  group: string,
  scope: Scope | null,
  damaged: DamagedRecord[] = [],
): Promise<RunRecord[]> {
  const out: RunRecord[] = [];
  const elsewhere = new Set<string>();
  for (const id of await sys.state.runs.ids()) {
    const read = readOne(sys, id);
    if (read.damage !== null) {
      // Named when the history's copy says it is one of this group's here (else nothing can).
      const copy = await historyCopy(sys, id);
      const ours = copy?.group === group && (scope === null || inScope(scope, copy));
      if (ours) damaged.push(read.damage);
      continue;
    }
    const r = read.record;
    if (r?.group !== group) continue;
    if (scope !== null && !inScope(scope, r)) elsewhere.add(placeOf(r));
    else out.push(await asSeen(sys, r));
  }
  if (out.length === 0 && damaged.length === 0) {
    if (scope !== null && elsewhere.size > 0) {
      const [place] = elsewhere;
      throw new UsageError(
        `No runs in group "${group}" in ${scopeName(scope)}: its runs are in ${
          elsewhere.size === 1 ? `"${place}"` : `${elsewhere.size} other places`
        }`,
        {
          hint: elsewhere.size === 1
            ? `name that repository with \`-d "${place}"\``
            : "name the repository with `-d DIR`",
        },
      );
    }
    throw new UsageError(`No runs in group "${group}"`, { hint: "list runs with `pitroom ls`" });
  }
  return out;
}

/**
 * The live runs plus the `recent` newest of the scope, oldest first, read newest first until
 * enough were found (the `recent/` markers first, every folder only when they fall short).
 * Damaged records met are added to `damaged`.
 */
export async function loadCurrent(
  sys: HeldSys,
  recent: number,
  scope: Scope | null,
  damaged: DamagedRecord[] = [],
): Promise<RunRecord[]> {
  const paths = sys.state.paths;
  const records = new Map<string, RunRecord>();
  const seen = new Set<string>();
  const take = async (id: string): Promise<RunRecord | null> => {
    if (seen.has(id)) return records.get(id) ?? null;
    seen.add(id);
    const read = readOne(sys, id);
    if (read.damage !== null) {
      if ((await belongs(sys, read, scope)) !== false) damaged.push(read.damage);
      return null;
    }
    if (read.record === null || (scope !== null && !inScope(scope, read.record))) return null;
    records.set(id, read.record);
    return read.record;
  };
  for (const id of await listActive(paths)) await take(id);
  if (recent > 0) {
    const newest: RunRecord[] = [];
    const marked = recent <= RECENT_KEEP ? await listRecent(paths) : null;
    const sources = marked === null ? [null] : [marked, null];
    for (const source of sources) {
      const ids = source ?? (await sys.state.runs.ids());
      for (let i = ids.length - 1; i >= 0; i--) {
        const id = ids[i]!;
        // Ids sort by their second only: runs of the same second as the last one taken compete
        // by creation time, so one made later in that second is never left out for an earlier.
        if (newest.length >= recent && !id.startsWith(newest.at(-1)!.id.slice(0, 15))) break;
        const r = await take(id);
        if (r !== null && !newest.includes(r)) newest.push(r);
      }
      if (newest.length >= recent) break;
    }
    newest.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const keep = new Set(newest.slice(0, recent).map((r) => r.id));
    const live = new Set(await listActive(paths));
    for (const id of [...records.keys()]) if (!keep.has(id) && !live.has(id)) records.delete(id);
  }
  const out: RunRecord[] = [];
  for (const id of [...records.keys()].sort()) out.push(await asSeen(sys, records.get(id)!));
  return out;
}
