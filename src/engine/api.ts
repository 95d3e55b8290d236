/**
 * `createEngine(sys)`: the front door (see mod.ts for the flow). Every method is the one place
 * its action is done; the CLI, the MCP server and the dashboard call these, nothing below.
 */
import type { PitroomEvent } from "../events/mod.ts";
import type { Preparation } from "../history/ready.ts";
import type { SearchFilter, SearchHit, SearchOptions } from "../history/search.ts";
import type { Stats } from "../history/stats.ts";
import type { SavingsTotals } from "../receipts/totals.ts";
import { activeCooldowns, clearCooldowns, type Cooldown } from "../store/cooldown.ts";
import { statePaths } from "../store/paths.ts";
import { isFinal, type RunRecord } from "../store/record.ts";
import { loadRecord, readRecord, resolveRunId } from "../store/runs.ts";
import { listActive } from "../store/active.ts";
import { join } from "../sys/path.ts";
import { exists } from "../sys/fs.ts";
import { PitroomError, RefusedError, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { Backend, WorkerName } from "../workers/types.ts";
import { type Applied, applyRun, discardRun } from "./apply.ts";
import { buildRuns, createUnique } from "./build.ts";
import { revertRun, stopRun, waitForRuns } from "./control.ts";
import { type Check, type DoctorOptions, runDoctor } from "./doctor.ts";
import { readEvents } from "./event_log.ts";
import { type FeedEvent, type FeedFilter, subscribe as follow, type Subscription } from "./feed.ts";
import { executeRun } from "./lifecycle.ts";
import { type LoadedSettings, loadSettings } from "./load_settings.ts";
import { collectModels, type WorkerModels } from "./models.ts";
import type { RunReport } from "./report.ts";
import { parseRequest, type RunRequest } from "./request.ts";
import { loadCurrent, loadGroup, loadNamed } from "./select.ts";
import { startSupervisors } from "./supervisor.ts";
import type { KeptRun } from "../history/lookup.ts";
import type { CleanPlan, CleanResult } from "../history/clean.ts";
import type { ImportResult } from "../history/import.ts";
import { reconcile } from "./liveness.ts";

/** Options of `createEngine`. */
export interface EngineOptions {
  /** Looks up a backend (tests hand in a scripted one). @default the registry */
  backends?: (name: WorkerName) => Backend;
}

/** Which runs an action is about: named ones (ids, unique parts, `last`), a group, every live. */
export type Selector = { runs: readonly string[] } | { group: string } | { live: true };

/** What `start` handed to the host. */
export interface Started {
  /** The first run's id. */
  id: string;
  /** Every run's id (a crew has several). */
  ids: string[];
  group?: string;
  /** Things the caller should hear about the settings (config warnings, a tier fallback). */
  warnings: string[];
}

/** Options of `run` (a foreground run). */
export interface RunOptions {
  /** Aborting stops the run. */
  signal?: AbortSignal;
  /** Every event, as it is written. */
  onEvent?(ev: PitroomEvent): void;
  /** Warnings about the settings, before the run starts. */
  onWarning?(text: string): void;
}

/** Options of `subscribe`. */
export interface SubscribeOptions {
  /** Aborting ends the subscription. */
  signal?: AbortSignal;
  /** Replay from this event index of each run (0 = everything; events before it are skipped). */
  since?: number | Readonly<Record<string, number>>;
  /** Called when a run joins (before its first event). */
  onRun?(record: RunRecord): void;
}

/** Options of `wait`. */
export interface EngineWaitOptions {
  /** @default 2147483647 (no limit) */
  timeoutMs?: number;
  /** Return once one run has ended. */
  any?: boolean;
  /** Aborting ends the wait (the runs go on). */
  signal?: AbortSignal;
  /** The command that waits again, for the hint when the time runs out. */
  again?: string;
}

/** Filters of `list`. */
export interface ListFilter {
  runs?: readonly string[];
  group?: string;
  /** Without runs or a group: the live runs plus this many recent ones. @default 10 */
  recent?: number;
}

/** Options of the history's readers. */
export interface HistoryOptions {
  /** Told when opening the history imported runs or repaired the file. */
  onPrepared?(prep: Preparation): void;
}

/** A group's apply: what was applied, where it stopped, what is left. */
export interface GroupApplied {
  group: string;
  applied: Applied[];
  failed?: { run: string; error: PitroomError };
  notApplied: string[];
  live: string[];
}

/** The front door. */
export interface Engine {
  /** Creates the request's runs and hands them to the state dir's host; returns at once. */
  start(request: RunRequest): Promise<Started>;
  /** Creates one run and executes it here; resolves with its report. */
  run(request: RunRequest, options?: RunOptions): Promise<RunReport>;
  /** Follows runs' events (first the ones written before, flagged `replay`). */
  subscribe(
    selector: Selector,
    onEvent: (ev: FeedEvent) => void,
    options?: SubscribeOptions,
  ): Subscription;
  /** One run's record (reconciled). */
  get(id: string): Promise<RunRecord>;
  /** Runs: named, a group's, or the live and recent ones (oldest first). */
  list(filter?: ListFilter): Promise<RunRecord[]>;
  /** One run's report. */
  report(id: string): Promise<RunReport>;
  /** One run's events, from an event index. */
  events(id: string, options?: { since?: number }): Promise<PitroomEvent[]>;
  /** One run's patch (refused when it changed nothing). */
  patch(id: string): Promise<string>;
  /** Waits for all (or any) of the runs to end; `StillRunning` when the time runs out. */
  wait(selector: Selector, options?: EngineWaitOptions): Promise<RunRecord[]>;
  /** Stops live runs (queued ones too), from any process. */
  stop(selector: Selector): Promise<RunRecord[]>;
  /** Applies an isolate run's patch. */
  apply(id: string, options?: { allowDelete?: boolean }): Promise<Applied>;
  /** Applies a group's finished patches in order, stopping at the first that does not apply. */
  applyGroup(group: string, options?: { allowDelete?: boolean }): Promise<GroupApplied>;
  /** Removes an isolate run's copy, keeping its patch. */
  discard(id: string): Promise<RunRecord>;
  /** Undoes exactly a finished run's changes. */
  revert(id: string): Promise<RunRecord>;
  /** The effective settings with their sources and the config's warnings. */
  settings(): Promise<LoadedSettings>;
  /** The setup checks (and one tiny real run per configured worker with `probe`). */
  doctor(options?: Omit<DoctorOptions, "backends">): Promise<Check[]>;
  /** The models of every worker (or one), with config and usage merged in. */
  models(worker?: WorkerName, options?: { all?: boolean }): Promise<WorkerModels[]>;
  /** The targets cooling down now. */
  cooldowns(): Promise<Cooldown[]>;
  /** Ends every cooldown; resolves with how many there were. */
  clearCooldowns(): Promise<number>;
  /** The history of finished runs. */
  history: {
    search(filter: SearchFilter, options?: SearchOptions & HistoryOptions): Promise<SearchHit[]>;
    stats(q: { since: number | null }, options?: HistoryOptions): Promise<Stats>;
    import(options?: HistoryOptions): Promise<ImportResult>;
    /** A cleaned run the history keeps, or null. */
    kept(typed: string): Promise<KeptRun | null>;
    /** What `clean` would remove: run folders older than `days`. */
    planClean(days: number): Promise<CleanPlan>;
    /** Removes the planned run folders (the history keeps them). */
    clean(plan: CleanPlan, options?: HistoryOptions): Promise<CleanResult>;
  };
  /** What the runs since `since` cost and saved. */
  savings(q: { since: number | null }, options?: HistoryOptions): Promise<SavingsTotals>;
  /** USD saved by the runs that ended since `since` (0 without a history). */
  savedSince(since: number): Promise<number>;
  /** The ids of the live runs, from their markers (without reading records). */
  liveIds(): Promise<string[]>;
  /** A run's record as it is on disk, or null (no reconciling: for quick looks). */
  peek(id: string): Promise<RunRecord | null>;
  /** Marks a run's card of a phase shown; false when it had been shown already. */
  markCardShown(id: string, phase: string): Promise<boolean>;
}

const FOREVER_MS = 2 ** 31 - 1;
const DAY_MS = 86_400_000;

/** The engine over one state dir and config (the ones of `sys`). */
export function createEngine(sys: Sys, options: EngineOptions = {}): Engine {
  const paths = statePaths(sys.stateDir);
  /** Foreground runs of this process: stopped through their controller, never a signal. */
  const local = new Map<string, AbortController>();

  const idsOf = async (selector: Selector): Promise<string[]> => {
    if ("runs" in selector) {
      return await Promise.all(selector.runs.map((typed) => resolveRunId(paths, typed)));
    }
    if ("group" in selector) return (await loadGroup(sys, selector.group)).map((r) => r.id);
    return (await loadCurrent(sys, 0)).filter((r) => !isFinal(r.state)).map((r) => r.id);
  };

  const filterOf = async (selector: Selector): Promise<FeedFilter> => {
    if ("group" in selector || "live" in selector) return selector;
    return { runs: await idsOf(selector) };
  };

  const history = async <T>(
    fn: (db: import("node:sqlite").DatabaseSync) => T | Promise<T>,
    opts: HistoryOptions = {},
  ): Promise<T> => {
    const { withHistory } = await import("../history/ready.ts");
    return await withHistory(sys, (db, prep) => {
      opts.onPrepared?.(prep);
      return fn(db);
    });
  };

  const engine: Engine = {
    async start(request) {
      const checked = parseRequest(request);
      const loaded = await loadSettings(sys);
      const { specs, warnings } = await buildRuns(sys, checked, loaded);
      if (specs.length > 1 && specs[0]!.mode === "write") {
        throw new RefusedError(
          "parallel_writers",
          `${specs.length} workers would edit the same tree in place at once`,
          {
            hint:
              "give each its own copy with -i (`pitroom crew -i ...`), then `pitroom apply -g NAME`",
          },
        );
      }
      const ids: string[] = [];
      try {
        for (const spec of specs) ids.push((await createUnique(sys, spec)).id);
      } finally {
        // Whatever was created runs, even when a later task could not be created.
        if (ids.length > 0) await startSupervisors(sys, ids);
      }
      const group = specs[0]!.group;
      return { id: ids[0]!, ids, ...(group === undefined ? {} : { group }), warnings };
    },

    async run(request, runOptions = {}) {
      const checked = parseRequest(request);
      if (checked.tasks !== undefined && checked.tasks.length > 1) {
        throw new UsageError("A foreground run takes one task: start a crew with `start`");
      }
      const loaded = await loadSettings(sys);
      const { specs, warnings } = await buildRuns(sys, checked, loaded);
      for (const w of warnings) runOptions.onWarning?.(w);
      const record = await createUnique(sys, specs[0]!);
      const controller = new AbortController();
      const onAbort = () => controller.abort(runOptions.signal?.reason);
      if (runOptions.signal?.aborted) onAbort();
      runOptions.signal?.addEventListener("abort", onAbort, { once: true });
      local.set(record.id, controller);
      try {
        return await executeRun(sys, record.id, {
          maxParallel: loaded.settings.maxParallel.value,
          limits: loaded.settings.limits.value,
          stop: controller.signal,
          ...(options.backends ? { backends: options.backends } : {}),
          ...(runOptions.onEvent ? { onEvent: runOptions.onEvent } : {}),
        });
      } finally {
        local.delete(record.id);
        runOptions.signal?.removeEventListener("abort", onAbort);
      }
    },

    subscribe(selector, onEvent, subOptions = {}) {
      const since = subOptions.since ?? 0;
      const seen = new Map<string, number>();
      const from = (run: string) => typeof since === "number" ? since : since[run] ?? 0;
      let feed: Subscription | null = null;
      let closed = false;
      const pass = (ev: FeedEvent) => {
        const index = seen.get(ev.run) ?? 0;
        seen.set(ev.run, index + 1);
        if (index >= from(ev.run)) onEvent(ev);
      };
      const opened = filterOf(selector).then((filter) => {
        if (closed) return null;
        feed = follow(sys, filter, pass, subOptions.onRun ? { onRun: subOptions.onRun } : {});
        return feed;
      });
      const close = async () => {
        closed = true;
        subOptions.signal?.removeEventListener("abort", onAbort);
        await (await opened.catch(() => null))?.close();
      };
      const onAbort = () => void close();
      subOptions.signal?.addEventListener("abort", onAbort, { once: true });
      return {
        ready: opened.then((f) => f?.ready),
        ended: opened.then((f) => f?.ended),
        runs: () => (feed as Subscription | null)?.runs() ?? [],
        close,
        [Symbol.asyncDispose]: close,
      };
    },

    async get(id) {
      return await reconcile(sys, await loadRecord(paths, await resolveRunId(paths, id)));
    },

    async list(filter = {}) {
      if (filter.runs !== undefined && filter.runs.length > 0) {
        return await loadNamed(sys, [...filter.runs]);
      }
      if (filter.group !== undefined) return await loadGroup(sys, filter.group);
      return await loadCurrent(sys, filter.recent ?? 10);
    },

    async report(id) {
      return await engine.get(id);
    },

    async events(id, eventOptions = {}) {
      const resolved = await resolveRunId(paths, id);
      const all = await readEvents(paths.run(resolved).events);
      return all.slice(eventOptions.since ?? 0);
    },

    async patch(id) {
      const resolved = await resolveRunId(paths, id);
      try {
        return await Deno.readTextFile(paths.run(resolved).patch);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
        throw new RefusedError("no_patch", `Run "${resolved}" changed no files`);
      }
    },

    async wait(selector, waitOptions = {}) {
      const ids = await idsOf(selector);
      return await waitForRuns(sys, ids, {
        timeoutMs: waitOptions.timeoutMs ?? FOREVER_MS,
        ...(waitOptions.any ? { any: true } : {}),
        ...(waitOptions.again === undefined ? {} : { again: waitOptions.again }),
        ...(waitOptions.signal === undefined ? {} : { signal: waitOptions.signal }),
      });
    },

    async stop(selector) {
      let ids: string[];
      if ("group" in selector) {
        ids = (await loadGroup(sys, selector.group)).filter((r) => !isFinal(r.state)).map((r) =>
          r.id
        );
      } else ids = await idsOf(selector);
      return await Promise.all(ids.map((id) => {
        const controller = local.get(id);
        return stopRun(
          sys,
          id,
          controller ? { abort: () => controller.abort(new Error("stopped")) } : {},
        );
      }));
    },

    async apply(id, applyOptions = {}) {
      const [record] = await loadNamed(sys, [id]);
      return await applyRun(sys, record!.id, { allowDelete: applyOptions.allowDelete === true });
    },

    async applyGroup(group, applyOptions = {}) {
      const runs = await loadGroup(sys, group);
      const live = runs.filter((r) => r.state === "queued" || r.state === "running");
      const todo = pendingPatches(runs);
      const applied: Applied[] = [];
      let failed: GroupApplied["failed"];
      for (const run of todo) {
        try {
          applied.push(
            await applyRun(sys, run.id, { allowDelete: applyOptions.allowDelete === true }),
          );
        } catch (error) {
          if (!(error instanceof PitroomError)) throw error;
          failed = { run: run.id, error };
          break;
        }
      }
      const rest = failed === undefined ? [] : todo.slice(applied.length + 1).map((r) => r.id);
      return {
        group,
        applied,
        ...(failed ? { failed } : {}),
        notApplied: rest,
        live: live.map((r) => r.id),
      };
    },

    async discard(id) {
      const [record] = await loadNamed(sys, [id]);
      return await discardRun(sys, record!.id);
    },

    async revert(id) {
      return await revertRun(sys, await resolveRunId(paths, id));
    },

    settings: () => loadSettings(sys),

    doctor: (doctorOptions = {}) => runDoctor(sys, doctorOptions),

    async models(worker, modelOptions = {}) {
      const { settings } = await loadSettings(sys);
      return await collectModels(sys, settings, {
        ...(worker === undefined ? {} : { worker }),
        all: modelOptions.all === true,
      });
    },

    cooldowns: () => activeCooldowns(paths, sys.clock.now()),
    clearCooldowns: () => clearCooldowns(paths, sys.clock.now()),

    history: {
      async search(filter, searchOptions = {}) {
        const { searchRuns } = await import("../history/search.ts");
        return await history((db) => searchRuns(db, filter, searchOptions), searchOptions);
      },
      async stats(q, historyOptions = {}) {
        const { computeStats } = await import("../history/stats.ts");
        return await history((db) => computeStats(db, q.since, sys.clock.now()), historyOptions);
      },
      async import(historyOptions = {}) {
        const { withHistory } = await import("../history/ready.ts");
        const { importRuns } = await import("../history/import.ts");
        return await withHistory(sys, async (db, prep) => {
          historyOptions.onPrepared?.(prep);
          // A first import has just run while opening; running it again would do the same work.
          if (prep.imported) return prep.imported;
          return await importRuns(sys, db);
        });
      },
      async kept(typed) {
        if (!(await exists(paths.history))) return null;
        const { keptRun, matchIds } = await import("../history/lookup.ts");
        return await history((db) => {
          const ids = matchIds(db, typed);
          if (ids.length > 1) {
            throw new UsageError(
              `Run "${typed}" is ambiguous: ${ids.length} runs in the history match`,
              { hint: "give more of the id" },
            );
          }
          return ids[0] === undefined ? null : keptRun(db, ids[0]);
        });
      },
      async planClean(days) {
        const { planClean } = await import("../history/clean.ts");
        return await planClean(sys, {
          cutoff: sys.clock.now() - days * DAY_MS,
          reconcile: (record) => reconcile(sys, record),
        });
      },
      async clean(plan, historyOptions = {}) {
        const { removeRuns } = await import("../history/clean.ts");
        return await history((db) => removeRuns(sys, db, plan), historyOptions);
      },
    },

    async savedSince(since) {
      if (!(await exists(paths.history))) return 0;
      const { savedSince } = await import("../history/mod.ts");
      return await savedSince(sys, since);
    },

    liveIds: () => listActive(paths),

    peek: (id) => readRecord(paths, id),

    async markCardShown(id, phase) {
      const dir = join(paths.run(id).dir, "cards");
      await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
      try {
        const file = await Deno.open(join(dir, phase), {
          write: true,
          createNew: true,
          mode: 0o600,
        });
        file.close();
        return true;
      } catch (error) {
        if (error instanceof Deno.errors.AlreadyExists) return false;
        throw error;
      }
    },

    async savings(q, historyOptions = {}) {
      const { savingsTotals } = await import("../history/savings.ts");
      return await history((db) => savingsTotals(db, q.since, sys.clock.now()), historyOptions);
    },
  };
  return engine;
}

/**
 * A group's isolate runs that are finished, ok and not applied yet, in the order they were
 * created (ids of the same second do not sort by time).
 */
function pendingPatches(runs: RunRecord[]): RunRecord[] {
  return runs.filter((r) =>
    r.mode === "isolate" && r.outcome === "ok" && r.isolation?.applied === undefined &&
    r.isolation?.discarded === undefined && (r.changes?.files.length ?? 0) > 0
  ).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}
