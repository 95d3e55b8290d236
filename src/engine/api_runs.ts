/**
 * The engine's reads of runs (behind `engine.get/list/found/events/patch`): what a caller typed
 * resolved within its scope (scope.ts: `last`, a part of an id and a group name mean the runs of
 * the caller's repository; a full id any run), records, lists, reports from the run folder or,
 * once cleaned or when its `run.json` is damaged, from the history, events and patches. A
 * damaged file is named with what still works (damage.ts), never taken for something else.
 */
import type { HeldSys } from "../store/state.ts";
import type { PitroomEvent } from "../events/mod.ts";
import { readEventsChecked } from "../store/events_file.ts";
import { readPatchChecked } from "../store/patch_file.ts";
import type { StatePaths } from "../store/paths.ts";
import { isFinal, type RunRecord } from "../store/record.ts";
import { DamagedRecord, RefusedError, UsageError } from "../sys/errors.ts";
import type { EngineHistory } from "./api_history.ts";
import { explained } from "./runs/damage.ts";
import type { KeptRun } from "./runs/history_copy.ts";
import { asSeen, sweepLost } from "./host/liveness.ts";
import type { RunReport } from "./follow/report.ts";
import { placeOf, type Scope, scopeName, scopeOf } from "./core/scope.ts";
import { loadCurrent, loadGroup, loadNamed, resolveRun } from "./runs/select.ts";

/** Filters of `list`. */
export interface ListFilter {
  /** Runs named as a user types them (a full id, a unique part of one in the scope, `last`). */
  runs?: readonly string[];
  /** A group's runs (in the scope, unless `all`). */
  group?: string;
  /** Without runs or a group: the live runs plus this many recent ones. @default 10 */
  recent?: number;
  /** A group's, or the live and recent runs of every repository, not only the scope's. */
  all?: boolean;
  /** Told of each damaged record met on the way (the list goes on without it). */
  onDamaged?(damage: DamagedRecord): void;
}

/** A run as `found` gives it. */
export interface Found {
  report: RunReport;
  /** What the history keeps of it, when the report comes from there (cleaned, or damaged). */
  kept: KeptRun | null;
  /** Its `run.json` is damaged: the report is the history's copy. */
  damage?: DamagedRecord;
}

/** A run's events as read, and the damage of its events file when there is one. */
export interface EventsFound {
  events: PitroomEvent[];
  damage: DamagedRecord | null;
}

/** The reads of runs over one state dir, from one folder's scope. */
export class RunReads {
  #sys: HeldSys;
  #paths: StatePaths;
  #dir: string;
  #scope: Promise<Scope> | null = null;
  #history: EngineHistory;

  constructor(sys: HeldSys, dir: string, history: EngineHistory) {
    this.#sys = sys;
    this.#paths = sys.state.paths;
    this.#dir = dir;
    this.#history = history;
  }

  /** Where the caller stands (worked out once). */
  scope(): Promise<Scope> {
    this.#scope ??= scopeOf(this.#sys, this.#dir);
    return this.#scope;
  }

  /** `fn`, with a damaged record it throws told what still works. */
  async #explaining<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof DamagedRecord) throw await explained(this.#sys, error);
      throw error;
    }
  }

  /** What the caller typed as a run id (a full id, a unique part in the scope, `last`). */
  resolve(typed: string): Promise<string> {
    return this.#explaining(() => resolveRun(this.#sys, typed, () => this.scope()));
  }

  /** One run's record (after the sweep: a run whose supervisor died is `lost`). */
  get(typed: string): Promise<RunRecord> {
    return this.#explaining(async () => {
      const id = await resolveRun(this.#sys, typed, () => this.scope());
      await sweepLost(this.#sys);
      return await asSeen(this.#sys, await this.#sys.state.runs.load(id));
    });
  }

  /** Runs: the named ones, a group's, or the live ones and the `recent` newest (oldest first). */
  async list(filter: ListFilter = {}): Promise<RunRecord[]> {
    // The sweep before the read: reads never write, so lost runs are marked here.
    await sweepLost(this.#sys);
    if (filter.runs !== undefined && filter.runs.length > 0) {
      const runs = filter.runs;
      return await this.#explaining(() => loadNamed(this.#sys, runs, () => this.scope()));
    }
    const scope = filter.all === true ? null : await this.scope();
    const damaged: DamagedRecord[] = [];
    const records = filter.group !== undefined
      ? await loadGroup(this.#sys, filter.group, scope, damaged)
      : await loadCurrent(this.#sys, filter.recent ?? 10, scope, damaged);
    if (filter.onDamaged !== undefined) {
      for (const damage of damaged) filter.onDamaged(await explained(this.#sys, damage));
    }
    return records;
  }

  /**
   * One run's report; once `pitroom clean` removed its folder, or when its `run.json` is damaged,
   * what the history keeps of it (its record as the report, its steps, its patch) with `kept`
   * set; the error of `get` when neither has it.
   */
  async found(typed: string): Promise<Found> {
    try {
      return { report: await this.get(typed), kept: null };
    } catch (error) {
      if (error instanceof DamagedRecord && error.file === "run.json") {
        const kept = await this.#history.kept(error.run, null);
        if (kept === null) throw error;
        return { report: kept.record, kept, damage: error };
      }
      if (!(error instanceof UsageError)) throw error;
      const scope = await this.scope();
      const kept = await this.#history.kept(typed, scope);
      if (kept !== null) return { report: kept.record, kept };
      // A cleaned run of another repository is named, as one with a folder is (select.ts).
      const elsewhere = typed === "last" ? null : await this.#history.kept(typed, null).catch((
        e,
      ) => (e instanceof UsageError ? null : Promise.reject(e)));
      if (elsewhere === null) throw error;
      const id = elsewhere.record.id;
      throw new UsageError(
        `No run "${typed}" in ${scopeName(scope)}: it names run "${id}" of "${
          placeOf(elsewhere.record)
        }"`,
        { hint: `a run of another repository is reached by its full id: ${id}` },
      );
    }
  }

  /** The patch of a run `found` gave: its folder's, or the history's (refused when none). */
  async foundPatch(found: Found): Promise<string> {
    const id = found.report.id;
    if (found.kept === null) return await this.patch(id);
    if (found.damage !== undefined) {
      // The folder is there: its patch, checked against the copy's digest, comes first.
      const read = await readPatchChecked(
        this.#paths.run(id).patch,
        found.report.changes?.patchDigest,
      );
      if (read.bytes !== null && read.damage === null) return new TextDecoder().decode(read.bytes);
    }
    if (found.kept.patch === null) {
      throw new RefusedError("no_patch", `Run "${id}" changed no files`);
    }
    return found.kept.patch;
  }

  /** One run's events from an event index, up to the damage of a damaged events file. */
  async eventsFound(typed: string, options: { since?: number } = {}): Promise<EventsFound> {
    const id = await this.resolve(typed);
    const read = await readEventsChecked(this.#paths.run(id).events);
    const events = read.events.slice(options.since ?? 0);
    let detail = read.damage === null
      ? null
      : `${read.damage}; ${read.events.length} event(s) before it read`;
    if (read.file === null) {
      // A run that started and ended has an events file: none at all is damage.
      const record = (await this.#sys.state.runs.checked(id)).record;
      if (record !== null && isFinal(record.state) && record.startedAt !== undefined) {
        detail = "missing";
      }
    }
    if (detail === null) return { events, damage: null };
    const damage = new DamagedRecord({ run: id, file: read.file ?? "events.jsonl.gz", detail });
    return { events, damage: await explained(this.#sys, damage) };
  }

  /** One run's events from an event index; `DamagedRecord` when its events file is damaged. */
  async events(typed: string, options: { since?: number } = {}): Promise<PitroomEvent[]> {
    const found = await this.eventsFound(typed, options);
    if (found.damage !== null) throw found.damage;
    return found.events;
  }

  /** One run's patch (refused when it changed no files; `DamagedRecord` when it is damaged). */
  async patch(typed: string): Promise<string> {
    const record = await this.get(typed);
    const id = record.id;
    const read = await readPatchChecked(this.#paths.run(id).patch, record.changes?.patchDigest);
    if (read.damage !== null) {
      throw await explained(
        this.#sys,
        new DamagedRecord({ run: id, file: "patch.diff", detail: read.damage }),
      );
    }
    if (read.bytes === null) throw new RefusedError("no_patch", `Run "${id}" changed no files`);
    return new TextDecoder().decode(read.bytes);
  }
}
