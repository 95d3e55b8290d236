/**
 * `createEngine(sys)`: the front door (see mod.ts for the flow). Every method is the one place
 * its action is done; the CLI, the MCP server and the dashboard call these, nothing below.
 */
// Only what reading runs needs is imported here: a command that reads (status, ls) loads no more.
// The rooms that start, execute, review, audit or check runs are imported where they are used,
// and the features (answer, review, audit) are registered as a loader of the hooks every run
// calls (features.ts), loaded when a run first needs them.
import { type HeldSys, holdState } from "../store/state.ts";
import type { PitroomEvent } from "../events/mod.ts";
import { activeCooldowns, clearCooldowns, type Cooldown } from "../store/cooldown.ts";
import type { StatePaths } from "../store/paths.ts";
import { isFinal, type PlanRef, type RunRecord } from "../store/record.ts";
import { listActive } from "../store/active.ts";
import { join } from "../sys/path.ts";
import { DamagedRecord, PitroomError, RefusedError, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import { type Backend, WORKER_NAMES, type WorkerName } from "../workers/types.ts";
import type { Applied } from "./runs/apply.ts";
import type { HandedHow, HandedRun } from "./runs/returned.ts";
import type { NewRun } from "./request/create.ts";
import type { LoadedPlan } from "./plan/load.ts";
import type { PlanNote } from "./plan/notes.ts";
import type { PlanStatus } from "./plan/status.ts";
import type { ReviewRequest } from "./review/request.ts";
import type { RevertRunOptions } from "./runs/revert.ts";
import type { Check, DoctorOptions } from "./setup/doctor.ts";
import type { SelfCheck } from "./setup/self_check.ts";
import type { FeedEvent, FeedFilter, Subscription } from "./follow/feed.ts";
import type { LoadedSettings } from "./core/load_settings.ts";
import type { WorkerModels } from "./setup/models.ts";
import type { RunReport } from "./follow/report.ts";
import type { RunRequest } from "./request/request.ts";
import type { Ahead } from "./run/ahead.ts";
import { loadCurrent, loadGroup } from "./runs/select.ts";
import { type EventsFound, type Found, type ListFilter, RunReads } from "./api_runs.ts";
import { explained } from "./runs/damage.ts";
import type { Scope } from "./core/scope.ts";
import type { Stall } from "./core/stall.ts";
import type { WorkerStatus } from "./setup/installed.ts";
import type { LongRunHook } from "./host/host.ts";
import { EngineHistory, type HistoryOptions, type Period } from "./api_history.ts";
import type { SavingsTotals } from "../receipts/totals.ts";
import { exists, isUnwritable } from "../sys/fs.ts";
import type { AuditOutcome, AuditRequest } from "./audit/mod.ts";
import type { EvalOptions, EvalResult } from "./eval/mod.ts";
import { MODES } from "../workers/modes.ts";
import { registerRunHooks } from "./run/hooks.ts";
import { timingMark } from "../sys/timing.ts";

registerRunHooks(async () => (await import("./features.ts")).FEATURE_HOOKS);

/** The settings, read once per action (core/load_settings.ts). */
async function loadSettings(sys: HeldSys): Promise<LoadedSettings> {
  return await (await import("./core/load_settings.ts")).loadSettings(sys);
}

/** Checks an untrusted run request (request/check.ts: the request's fields, without zod). */
async function parseRequest(request: RunRequest): Promise<RunRequest> {
  return (await import("./request/check.ts")).checkRequest(request);
}

/** What `review` started (and, in the foreground, its finished report). */
export interface ReviewStarted {
  /** The review run. */
  id: string;
  kind: "task" | "fix" | "range";
  /** What was redacted from the package before it left the machine. */
  redacted: { files: string[]; secrets: number };
  warnings: string[];
  /** A foreground review's final report (its `review.verdict` holds the verdict). */
  report?: RunReport;
}

/** Options of `createEngine`. */
export interface EngineOptions {
  /** Looks up a backend (tests hand in a scripted one). @default the registry */
  backends?: (name: string) => Backend;
  /**
   * The folder the caller stands in: `last`, a part of an id and a group name resolve among the
   * runs of its repository, and `list` shows them unless told `all` (a full id names any run).
   * @default the working directory
   */
  dir?: string;
}

/**
 * Which runs an action is about: named ones (ids, unique parts, `last`), a group (both in the
 * scope's repository), or every live run (of every repository).
 */
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
  /** Told each time a worker process of the run is spawned (each attempt's). */
  onSpawned?(): void;
  /**
   * Leaves the run's history row pending: the next history read indexes it (every reader catches
   * up first, store/history/ready.ts), with the hand-over the caller records meanwhile. A
   * short-lived caller (`pitroom run`) then ends without opening SQLite at all, and the row needs
   * one write instead of two.
   * @default false
   */
  indexLater?: boolean;
}

/** Options of `subscribe`. */
export interface SubscribeOptions {
  /** Aborting ends the subscription. */
  signal?: AbortSignal;
  /** Replay from this event index of each run (0 = everything; events before it are skipped). */
  since?: number | Readonly<Record<string, number>>;
  /** Per run, resume after this byte offset of its events file (an earlier event's `offset`). */
  fromOffsets?: Readonly<Record<string, number>>;
  /** Called when a run joins (before its first event). */
  onRun?(record: RunRecord): void;
  /**
   * Told once a run when its events file or record turns out damaged (what could be read was
   * delivered; the run ends when its record says so, or at once when the record is damaged).
   */
  onDamage?(damage: DamagedRecord): void;
  /**
   * Told when a followed run goes stalled: its worker sent no event for the run's stall time
   * (the config's `stallAfter`), once per silence, with its record then. The stall ends with the
   * run's next event; the run goes on (nothing is stopped for it).
   */
  onStall?(run: string, stall: Stall, record: RunRecord): void;
  /**
   * Also the changes of finished runs (`run.changed`) made since this time (ms since the epoch),
   * as far back as the change journal goes; without it, those made from now on.
   */
  changesSince?: number;
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
  /**
   * Told of each damaged file met (once a run): a run whose record is damaged is not waited for
   * and is left out of the result; one whose events file is, ends when its record says so.
   */
  onDamage?(damage: DamagedRecord): void;
}

/** A group's apply: what was applied, where it stopped, what is left. */
export interface GroupApplied {
  group: string;
  applied: Applied[];
  failed?: { run: string; error: PitroomError };
  notApplied: string[];
  live: string[];
}

const FOREVER_MS = 2 ** 31 - 1;

/** The front door: every action on runs, over one state dir and config (the ones of `sys`). */
export class Engine {
  #sys: HeldSys;
  #options: EngineOptions;
  #paths: StatePaths;
  /** Foreground runs of this process: stopped through their controller, never a signal. */
  #local = new Map<string, AbortController>();
  /** The history of finished runs: search, stats, savings, import, clean. */
  readonly history: EngineHistory;
  #reads: RunReads;

  constructor(sys: HeldSys, options: EngineOptions = {}) {
    this.#sys = sys;
    this.#options = options;
    this.#paths = sys.state.paths;
    this.history = new EngineHistory(sys);
    this.#reads = new RunReads(sys, options.dir ?? sys.cwd(), this.history);
  }

  /**
   * Where the caller stands: the repository (or, outside git, the folder) whose runs `last`, a
   * part of an id and a group name mean.
   */
  scope(): Promise<Scope> {
    return this.#reads.scope();
  }

  async #ids(selector: Selector): Promise<string[]> {
    if ("runs" in selector) {
      return await Promise.all(selector.runs.map((typed) => this.#reads.resolve(typed)));
    }
    if ("group" in selector) return (await this.#group(selector.group)).map((r) => r.id);
    return (await this.#live()).map((r) => r.id);
  }

  async #group(group: string): Promise<RunRecord[]> {
    return await loadGroup(this.#sys, group, await this.scope());
  }

  async #live(): Promise<RunRecord[]> {
    return (await loadCurrent(this.#sys, 0, null)).filter((r) => !isFinal(r.state));
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

  /** The request with its `continue` resolved in the scope (a full id then names the run). */
  async #resolved(request: RunRequest): Promise<RunRequest> {
    if (request.continue === undefined) return request;
    // Read reconciled: a run whose supervisor died is lost (final), and can be continued.
    return { ...request, continue: (await this.#reads.get(request.continue)).id };
  }

  /** A `plan`/`step` request as its task's request (plan/request.ts), with the plan it names. */
  async #planned(request: RunRequest): Promise<{ request: RunRequest; plan?: PlanRef }> {
    if (request.plan === undefined && request.step === undefined) return { request };
    const { plannedRequest } = await import("./plan/request.ts");
    return await plannedRequest(this.#sys, request);
  }

  /** Creates the request's runs (a crew: one per task) and hands them to the host; returns at once. */
  async start(request: RunRequest): Promise<Started> {
    return await this.#start(await this.#resolved(await parseRequest(request)), {});
  }

  async #start(
    request: RunRequest,
    extra: Partial<NewRun>,
    loaded?: LoadedSettings,
  ): Promise<Started> {
    const sys = this.#sys;
    const planned = await this.#planned(request);
    const { buildRuns, createUnique } = await import("./request/build.ts");
    const built = await buildRuns(
      sys,
      planned.request,
      loaded ?? await loadSettings(sys),
      planned.plan,
    );
    const warnings = built.warnings;
    const specs = built.specs.map((spec) => ({ ...spec, ...extra }));
    if (specs.length > 1 && MODES[specs[0]!.mode].editsInPlace) {
      throw new RefusedError(
        "parallel_writers",
        `${specs.length} workers would edit the same tree in place at once`,
        {
          hint:
            "give each its own copy with -i (`pitroom crew -i ...`), then `pitroom apply -g NAME`",
        },
      );
    }
    if (MODES[specs[0]!.mode].editsInPlace) {
      const { refuseBusyWriter } = await import("./tree/writer.ts");
      await refuseBusyWriter(sys, this.#paths, specs[0]!.cwd);
    }
    const ids: string[] = [];
    try {
      for (const [i, spec] of specs.entries()) {
        const indexed = specs.length > 1 ? { ...spec, taskIndex: i } : spec;
        ids.push((await createUnique(sys, indexed)).id);
      }
    } finally {
      // Whatever was created runs, even when a later task could not be created.
      if (ids.length > 0) {
        const { startSupervisors } = await import("./host/supervisor.ts");
        await startSupervisors(sys, ids).catch(async (error) => {
          // Nothing could be handed to the host (a full disk): what it never took goes.
          if (isUnwritable(error)) {
            const { discardUnstarted } = await import("./request/create.ts");
            for (const id of ids) await discardUnstarted(sys, id);
          }
          throw error;
        });
      }
    }
    const group = specs[0]!.group;
    return { id: ids[0]!, ids, ...(group === undefined ? {} : { group }), warnings };
  }

  /** Creates one run and executes it in this process; resolves with its report. */
  async run(request: RunRequest, options: RunOptions = {}): Promise<RunReport> {
    const checked = await parseRequest(request);
    if (checked.tasks !== undefined && checked.tasks.length > 1) {
      throw new UsageError("A foreground run takes one task: start a crew with `start`");
    }
    // A read run's snapshot walk starts now, beside setting the run up; a write run's repository
    // is found once (run/ahead.ts).
    const askedAt = this.#sys.clock.now();
    const { walkAhead } = await import("./run/ahead.ts");
    const ahead = await walkAhead(this.#sys, checked);
    // What the caller does once the run ends (its hand-over) loads while the worker works,
    // rather than after it.
    let after: Promise<unknown> | undefined;
    const prefetching = !options.indexLater ? options : {
      ...options,
      onSpawned: () => {
        after ??= import("./runs/returned.ts").catch(() => undefined);
        options.onSpawned?.();
      },
    };
    try {
      return await this.#run(
        await this.#resolved(checked),
        prefetching,
        { askedAt },
        undefined,
        ahead,
      );
    } finally {
      ahead?.release();
      await ahead?.done;
      await after;
    }
  }

  async #run(
    checked: RunRequest,
    options: RunOptions,
    extra: Partial<NewRun>,
    loaded?: LoadedSettings,
    ahead?: Ahead,
  ): Promise<RunReport> {
    const planned = await this.#planned(checked);
    const { buildRuns, createUnique } = await import("./request/build.ts");
    const { specs, warnings } = await buildRuns(
      this.#sys,
      planned.request,
      loaded ?? await loadSettings(this.#sys),
      planned.plan,
      ahead,
    );
    for (const w of warnings) options.onWarning?.(w);
    const spec = { ...specs[0]!, ...extra };
    if (MODES[spec.mode].editsInPlace) {
      const { refuseBusyWriter } = await import("./tree/writer.ts");
      await refuseBusyWriter(this.#sys, this.#paths, spec.cwd, ahead);
    }
    const { executeRun } = await import("./run/lifecycle.ts");
    const record = await createUnique(this.#sys, spec);
    timingMark(this.#sys, "created");
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    this.#local.set(record.id, controller);
    try {
      return await executeRun(this.#sys, record.id, {
        maxParallel: spec.settings!.maxParallel,
        limits: spec.settings!.limits,
        stop: controller.signal,
        ...(this.#options.backends ? { backends: this.#options.backends } : {}),
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        ...(options.onSpawned ? { onSpawned: options.onSpawned } : {}),
        ...(options.indexLater ? { indexLater: true } : {}),
        ...(ahead === undefined ? {} : { ahead }),
      });
    } catch (error) {
      // It could not even start (a full disk): it goes, rather than wait to be found lost.
      if (isUnwritable(error)) {
        await (await import("./request/create.ts")).discardUnstarted(this.#sys, record.id);
      }
      throw error;
    } finally {
      this.#local.delete(record.id);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Reviews a run's change (or a commit range) with a read-only worker on another backend than
   * the implementer's: builds the package (redacted), then runs the reviewer here, or in the
   * host with `background`. The verdict is parsed when the review ends (into both records).
   */
  async review(request: ReviewRequest, options: RunOptions = {}): Promise<ReviewStarted> {
    const { parseReviewRequest } = await import("./review/request.ts");
    const typed = parseReviewRequest(request);
    const checked = typed.run === undefined
      ? typed
      : { ...typed, run: await this.#reads.resolve(typed.run) };
    const loaded = await loadSettings(this.#sys);
    const { prepareReview } = await import("./review/prepare.ts");
    const prepared = await prepareReview(this.#sys, checked, loaded);
    const about = { kind: prepared.review.kind, redacted: prepared.review.redacted };
    if (checked.background === true) {
      const started = await this.#start(prepared.run, { review: prepared.review }, loaded);
      return { id: started.id, ...about, warnings: [...prepared.warnings, ...started.warnings] };
    }
    for (const w of prepared.warnings) options.onWarning?.(w);
    const report = await this.#run(prepared.run, options, { review: prepared.review }, loaded);
    return { id: report.id, ...about, warnings: prepared.warnings, report };
  }

  /** Where a plan stands (one row per task, the rulings), from the run records and notes. */
  async planStatus(plan: string): Promise<PlanStatus> {
    return await (await import("./plan/status.ts")).planStatus(this.#sys, plan);
  }

  /** Adds a timestamped note to a plan (kept in the state dir, keyed by the plan's real path). */
  async planNote(plan: string, text: string): Promise<PlanNote> {
    const { addNote } = await import("./plan/notes.ts");
    return await addNote(this.#sys, await this.loadPlan(plan), text);
  }

  /** A plan file, parsed (its title, Spec, constraints, tasks) with its group. */
  async loadPlan(plan: string): Promise<LoadedPlan> {
    return await (await import("./plan/load.ts")).loadPlan(this.#sys, plan);
  }

  /**
   * Follows runs' events: first what each run wrote before (flagged `replay`, from the event
   * index `since`), then every new event as it is appended.
   */
  subscribe(
    selector: Selector,
    onEvent: (ev: FeedEvent) => void,
    options: SubscribeOptions = {},
  ): Subscription {
    const since = options.since ?? 0;
    const seen = new Map<string, number>();
    const from = (run: string) => typeof since === "number" ? since : since[run] ?? 0;
    let feed: Subscription | null = null;
    let closed = false;
    const pass = (ev: FeedEvent) => {
      // A change after a run's end is not in its events file: it has no index there.
      if (ev.event.type === "run.changed") return onEvent(ev);
      const index = seen.get(ev.run) ?? 0;
      seen.set(ev.run, index + 1);
      if (index >= from(ev.run)) onEvent(ev);
    };
    const filter: Promise<FeedFilter> = "runs" in selector
      ? this.#ids(selector).then((runs) => ({ runs }))
      : "group" in selector
      ? this.scope().then((scope) => ({ group: selector.group, scope }))
      : Promise.resolve(selector);
    const onDamage = options.onDamage;
    // Each damage is told with what still works; `close` resolves once every one was told.
    const explaining: Promise<void>[] = [];
    const opened = Promise.all([filter, import("./follow/feed.ts")]).then(([f, feedModule]) => {
      if (closed) return null;
      const follow = feedModule.subscribe;
      feed = follow(this.#sys, f, pass, {
        ...(options.onRun ? { onRun: options.onRun } : {}),
        ...(options.fromOffsets ? { fromOffsets: options.fromOffsets } : {}),
        ...(options.onStall ? { onStall: options.onStall } : {}),
        ...(options.changesSince === undefined ? {} : { changesSince: options.changesSince }),
        ...(onDamage
          ? { onDamage: (d) => explaining.push(explained(this.#sys, d).then(onDamage)) }
          : {}),
      });
      return feed;
    });
    const close = async () => {
      closed = true;
      options.signal?.removeEventListener("abort", onAbort);
      await (await opened.catch(() => null))?.close();
      await Promise.all(explaining);
    };
    const onAbort = () => void close();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // Aborted before the listener: no event will come.
    if (options.signal?.aborted) onAbort();
    return {
      ready: opened.then((f) => f?.ready),
      ended: opened.then((f) => f?.ended),
      runs: () => (feed as Subscription | null)?.runs() ?? [],
      close,
      [Symbol.asyncDispose]: close,
    };
  }

  /**
   * Has another worker and model re-check a finished read answer (`pitroom audit`, the MCP tool
   * `pitroom_audit`); the verdict lands on the audited run's record.
   */
  async audit(request: AuditRequest, options: RunOptions = {}): Promise<AuditOutcome> {
    const { parseAuditRequest } = await import("./audit/request.ts");
    const { runAudit } = await import("./audit/mod.ts");
    const checked = parseAuditRequest(request);
    const run = await this.#reads.resolve(checked.run);
    return await runAudit(this.#sys, { ...checked, run }, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(this.#options.backends ? { backends: this.#options.backends } : {}),
    });
  }

  /**
   * The audited run once its audit `audit` (a run the host executed) was copied onto it: the
   * host does that just after the audit run ends, so a caller that saw the audit run end reads
   * the verdict here rather than `running`. After `timeoutMs` (or when `signal` aborts) the
   * record as it is then.
   */
  async auditSettled(
    run: string,
    audit: string,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<RunRecord> {
    const { watchUntil } = await import("./core/watch.ts");
    const settled = async () => {
      const now = (await this.#sys.state.runs.read(run))?.audit;
      return now === undefined || now.run !== audit || now.state !== "running";
    };
    const aborted = options.signal === undefined ? undefined : new Promise<void>((resolve) => {
      if (options.signal!.aborted) resolve();
      options.signal!.addEventListener("abort", () => resolve(), { once: true });
    });
    await watchUntil(this.#paths.run(run).dir, settled, {
      timeoutMs: options.timeoutMs,
      clock: this.#sys.clock,
      ...(aborted === undefined ? {} : { until: aborted }),
    });
    return await this.get(run);
  }

  /** Scores workers on a questions file (`pitroom eval`): one crew of read runs per worker. */
  async eval(path: string, options: EvalOptions = {}): Promise<EvalResult> {
    const { runEval } = await import("./eval/mod.ts");
    return await runEval(this.#sys, this, path, options);
  }

  /** One run's record (reconciled: a run whose supervisor died is `lost`). */
  get(id: string): Promise<RunRecord> {
    return this.#reads.get(id);
  }

  /**
   * Runs: the named ones, a group's, or the live ones and the `recent` newest (oldest first), of
   * the scope's repository unless `all`.
   */
  list(filter: ListFilter = {}): Promise<RunRecord[]> {
    return this.#reads.list(filter);
  }

  /** One run's report (the shape of every `--json` and the text report). */
  report(id: string): Promise<RunReport> {
    return this.get(id);
  }

  /**
   * One run's report, or, once `pitroom clean` removed its folder or when its `run.json` is
   * damaged (`damage`), what the history keeps of it (its record as the report, its steps, its
   * patch) with `kept` set; the error of `report` when neither has it.
   */
  found(typed: string): Promise<Found> {
    return this.#reads.found(typed);
  }

  /** The patch of a run `found` gave: its folder's, or the history's (refused when none). */
  foundPatch(found: Found): Promise<string> {
    return this.#reads.foundPatch(found);
  }

  /** One run's events from an event index; `DamagedRecord` when its events file is damaged. */
  events(id: string, options: { since?: number } = {}): Promise<PitroomEvent[]> {
    return this.#reads.events(id, options);
  }

  /** One run's events from an event index, up to the damage of a damaged events file. */
  eventsFound(id: string, options: { since?: number } = {}): Promise<EventsFound> {
    return this.#reads.eventsFound(id, options);
  }

  /** One run's patch (refused when it changed no files; `DamagedRecord` when it is damaged). */
  patch(id: string): Promise<string> {
    return this.#reads.patch(id);
  }

  /** Waits for all (or any) of the runs to end; `StillRunning` when the time runs out. */
  async wait(selector: Selector, options: EngineWaitOptions = {}): Promise<RunRecord[]> {
    const damaged: DamagedRecord[] = [];
    try {
      const { waitForRuns } = await import("./runs/control.ts");
      return await waitForRuns(this.#sys, await this.#ids(selector), {
        timeoutMs: options.timeoutMs ?? FOREVER_MS,
        ...(options.any ? { any: true } : {}),
        ...(options.again === undefined ? {} : { again: options.again }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        onDamage: (damage) => damaged.push(damage),
      });
    } finally {
      for (const damage of damaged) options.onDamage?.(await explained(this.#sys, damage));
    }
  }

  /** Stops live runs (queued ones too; a group's live ones), from any process. */
  async stop(selector: Selector): Promise<RunRecord[]> {
    const ids = "group" in selector
      ? (await this.#group(selector.group)).filter((r) => !isFinal(r.state)).map((r) => r.id)
      : await this.#ids(selector);
    const { stopRun } = await import("./runs/control.ts");
    return await this.#explaining(() =>
      Promise.all(ids.map((id) => {
        const own = this.#local.get(id);
        return stopRun(this.#sys, id, own ? { abort: () => own.abort(new Error("stopped")) } : {});
      }))
    );
  }

  /** Applies a finished isolate run's patch to the user's tree. */
  async apply(id: string, options: { allowDelete?: boolean } = {}): Promise<Applied> {
    const resolved = await this.#reads.resolve(id);
    const { applyRun } = await import("./runs/apply.ts");
    return await this.#explaining(() =>
      applyRun(this.#sys, resolved, { allowDelete: options.allowDelete === true })
    );
  }

  /** Applies a group's finished patches oldest first, stopping at the first that does not apply. */
  async applyGroup(group: string, options: { allowDelete?: boolean } = {}): Promise<GroupApplied> {
    const runs = await this.#group(group);
    const todo = pendingPatches(runs);
    const applied: Applied[] = [];
    let failed: GroupApplied["failed"];
    for (const run of todo) {
      try {
        applied.push(await this.apply(run.id, options));
      } catch (error) {
        if (!(error instanceof PitroomError)) throw error;
        failed = { run: run.id, error };
        break;
      }
    }
    return {
      group,
      applied,
      ...(failed ? { failed } : {}),
      notApplied: failed === undefined ? [] : todo.slice(applied.length + 1).map((r) => r.id),
      live: runs.filter((r) => r.state === "queued" || r.state === "running").map((r) => r.id),
    };
  }

  /** Removes an isolate run's copy, keeping its patch. */
  async discard(id: string): Promise<RunRecord> {
    const resolved = await this.#reads.resolve(id);
    const { discardRun } = await import("./runs/apply.ts");
    return await this.#explaining(() => discardRun(this.#sys, resolved));
  }

  /**
   * Undoes exactly a finished run's changes. A run whose run.json is damaged is undone from its
   * patch, where the history's copy of its record says it worked (`onDamaged` is told first);
   * the damage is the error when nothing says where.
   */
  async revert(
    id: string,
    options: RevertRunOptions & { onDamaged?(damage: DamagedRecord): void } = {},
  ): Promise<RunRecord> {
    try {
      const resolved = await this.#reads.resolve(id);
      const { revertRun } = await import("./runs/revert.ts");
      return await revertRun(this.#sys, resolved, options);
    } catch (error) {
      if (!(error instanceof DamagedRecord) || error.file !== "run.json") throw error;
      const { revertFromPatch } = await import("./runs/revert_patch.ts");
      const damage = await explained(this.#sys, error);
      options.onDamaged?.(damage);
      return await revertFromPatch(this.#sys, damage, options);
    }
  }

  /** The effective settings with their sources, and the config's warnings. */
  settings(): Promise<LoadedSettings> {
    return loadSettings(this.#sys);
  }

  /** Which worker CLIs are installed here, with their versions (the backends' detection). */
  async installed(): Promise<WorkerStatus[]> {
    const lookup = this.#options.backends;
    const { detectWorkers } = await import("./setup/installed.ts");
    return await detectWorkers(
      this.#sys.runner,
      this.#sys.env.toObject(),
      lookup === undefined ? {} : {
        backends: Object.fromEntries(WORKER_NAMES.map((name) => [name, lookup(name)])) as Record<
          WorkerName,
          Backend
        >,
      },
    );
  }

  /**
   * Serves as the state dir's host until it is idle or `signal` aborts (at once when another
   * process is the host); resolves with how many runs it executed.
   */
  async host(options: { signal?: AbortSignal; longRun?: LongRunHook } = {}): Promise<number> {
    const { runHost } = await import("./host/host.ts");
    return await runHost(this.#sys, {
      ...options,
      ...(this.#options.backends === undefined ? {} : { backends: this.#options.backends }),
    });
  }

  /**
   * A host's side of one remote launch (`pitroom host serve`, started over SSH): the job and the
   * copy's state come in on `input`, the worker's lines and changed files go out on `output`.
   */
  async serveLaunch(
    input: ReadableStream<Uint8Array>,
    output: WritableStream<Uint8Array>,
  ): Promise<number> {
    return await (await import("./remote/serve.ts")).serveLaunch(this.#sys, input, output);
  }

  /** The Kubernetes Pod manifest a container host runs a worker with (an example run). */
  async hostManifest(name: string): Promise<string> {
    const { loadConfig } = await import("../store/config.ts");
    const { config } = await loadConfig(this.#sys.configPath);
    return await (await import("./remote/manifest.ts")).exampleManifest(config.hosts, name);
  }

  /** The program's own checks: the state dir is writable, git is new enough. */
  async selfCheck(): Promise<SelfCheck[]> {
    return await (await import("./setup/self_check.ts")).selfCheck(this.#sys);
  }

  /** The setup checks (and one tiny real run per configured worker with `probe`). */
  async doctor(options: Omit<DoctorOptions, "backends"> = {}): Promise<Check[]> {
    return await (await import("./setup/doctor.ts")).runDoctor(this.#sys, options);
  }

  /** The models of every worker (or one), with config and usage merged in. */
  async models(worker?: string, options: { all?: boolean } = {}): Promise<WorkerModels[]> {
    const { settings } = await loadSettings(this.#sys);
    const { collectModels } = await import("./setup/models.ts");
    return await collectModels(this.#sys, settings, {
      ...(worker === undefined ? {} : { worker }),
      all: options.all === true,
    });
  }

  /** The targets cooling down now. */
  cooldowns(): Promise<Cooldown[]> {
    return activeCooldowns(this.#paths, this.#sys.clock.now());
  }

  /** Ends every cooldown; resolves with how many there were. */
  clearCooldowns(): Promise<number> {
    return clearCooldowns(this.#paths, this.#sys.clock.now());
  }

  /** What the runs of a period cost and saved. */
  async savings(period: Period, options: HistoryOptions = {}): Promise<SavingsTotals> {
    const { savingsTotals } = await import("./history/savings.ts");
    const now = this.#sys.clock.now();
    return await this.history.open((db) => savingsTotals(db, period.since, now), options);
  }

  /** USD saved by the runs that ended since `since` (0, without loading SQLite, with no history). */
  async savedSince(since: number): Promise<number> {
    if (!(await exists(this.#paths.history))) return 0;
    const { savedSince } = await import("./history/savings.ts");
    return await savedSince(this.#sys, since);
  }

  /** The ids of the live runs, from their markers (no record is read). */
  liveIds(): Promise<string[]> {
    return listActive(this.#paths);
  }

  /**
   * Records what a face handed over of runs (each run's share of an MCP result or of the CLI's
   * output, in bytes): their receipts' returned tokens and compression count it from then on,
   * and so does `savings`. Never throws (runs/returned.ts).
   */
  async handedOver(runs: readonly HandedRun[], how: HandedHow): Promise<void> {
    const { recordHandover } = await import("./runs/returned.ts");
    await recordHandover(this.#sys, runs, how);
  }

  /** A run's record as it is on disk, or null (not reconciled: for quick looks). */
  peek(id: string): Promise<RunRecord | null> {
    return this.#sys.state.runs.read(id);
  }

  /** Marks a run's card of a phase shown; false when it had been shown already. */
  async markCardShown(id: string, phase: string): Promise<boolean> {
    const dir = join(this.#paths.run(id).dir, "cards");
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    try {
      const file = await Deno.open(join(dir, phase), { write: true, createNew: true, mode: 0o600 });
      file.close();
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) return false;
      throw error;
    }
  }
}

/** The engine over the state dir and config of `sys`. */
export function createEngine(sys: Sys, options: EngineOptions = {}): Engine {
  return new Engine(holdState(sys), options);
}

/**
 * A group's isolate runs that are finished, ok and not applied yet, in the order they were
 * created (ids of the same second do not sort by time).
 */
function pendingPatches(runs: RunRecord[]): RunRecord[] {
  // A follow-up in the same copy carries its run's changes too: only the last one is applied.
  const continued = new Set(
    runs.filter((r) => r.outcome === "ok" && r.continues !== undefined).map((r) =>
      r.continues!.run
    ),
  );
  return runs.filter((r) =>
    MODES[r.mode].usesCopy && r.outcome === "ok" && r.isolation?.applied === undefined &&
    r.isolation?.discarded === undefined && (r.changes?.files.length ?? 0) > 0 &&
    !continued.has(r.id)
  ).sort((a, b) =>
    // A plan's runs in step order; tasks given together in their order, even when created in
    // the same millisecond.
    (a.plan?.step ?? 0) - (b.plan?.step ?? 0) || a.createdAt - b.createdAt ||
    (a.taskIndex ?? 0) - (b.taskIndex ?? 0) || (a.id < b.id ? -1 : 1)
  );
}
