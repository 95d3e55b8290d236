/**
 * The event feed: every event of the followed runs, the moment it is appended to a run's events
 * file. One file watch per subscriber covers the run folders it follows (and `active/`, where
 * new runs appear); each events file is read from the byte offset the last read stopped at.
 * The same watch sees a dead supervisor: the kernel closes its lock file, the feed checks the
 * run's lock, and a run found `lost` gets its `run.lost` event like any other. Nothing here
 * polls: a short sweep follows each change (the watch may drop events under load), and one
 * check ends a never-supervised run's start-up grace. A subscriber that asks (`onStall`) is told
 * when a run goes stalled: a timer per run falls due when its worker's silence would be a stall,
 * and its record is read then (feed_stall.ts).
 * A finished run whose record changes later (applied, reverted, discarded, audited, reviewed:
 * engine/runs/changed.ts) is told by a `run.changed` event from the state dir's change journal
 * (feed_changes.ts), which the same watch covers: a subscriber hears of it for a run it follows
 * that has ended (a `{ live: true }` one for any run), from the moment it subscribed, or since a
 * time it asks for (`changesSince`).
 * `wait`, `watch`, the dashboard and the MCP server subscribe to it.
 */
import type { HeldSys } from "../../store/state.ts";
import { event, type PitroomEvent } from "../../events/mod.ts";
import { listActive } from "../../store/active.ts";
import { isLocked } from "../../store/locks.ts";
import { isRunId, type StatePaths } from "../../store/paths.ts";
import { isFinal, type RunRecord } from "../../store/record.ts";
import { DamagedRecord } from "../../sys/errors.ts";
import { basename, dirname } from "../../sys/path.ts";
import type { Timer } from "../../sys/mod.ts";
import { EventTail } from "./feed_tail.ts";
import { asSeen, STARTUP_GRACE_MS } from "../host/liveness.ts";
import { inScope, type Scope } from "../core/scope.ts";
import type { Stall } from "../core/stall.ts";
import { StallChecks } from "./feed_stall.ts";
import { type Change, ChangeTail } from "./feed_changes.ts";

/** Which runs a subscription follows. */
export type FeedFilter =
  | { runs: readonly string[] }
  /** A group's runs (of one repository's, with `scope`). */
  | { group: string; scope?: Scope }
  /** Every live run, every run started while subscribed, and the changes of any finished run. */
  | { live: true };

/** One event of one run. */
export interface FeedEvent {
  run: string;
  event: PitroomEvent;
  /** True for what the run did before the subscription started. */
  replay: boolean;
  /**
   * The byte offset of the run's events file after this event: a reconnect resumes there (for a
   * `run.changed`, which is not in that file, the offset reached before it).
   */
  offset: number;
}

/** Options of `subscribe`. */
export interface FeedOptions {
  /** Called when a run joins the feed (before its first event), with its record then. */
  onRun?(record: RunRecord): void;
  /** Per run, the byte offset to resume from (an earlier event's `offset`); else the start. */
  fromOffsets?: Readonly<Record<string, number>>;
  /**
   * Told once per run when its events file or record turns out damaged: the events before the
   * damage were given, and the run ends when its record says it ended (or at once, when its
   * record is the damaged file), never waiting for events that cannot come.
   */
  onDamage?(damage: DamagedRecord): void;
  /**
   * Told when a followed run goes stalled (its worker sent no event for the run's stall time),
   * once per silence, with the record read then; the stall ends with the run's next event.
   * Without it the feed keeps no stall timers.
   */
  onStall?(run: string, stall: Stall, record: RunRecord): void;
  /**
   * Also the changes of finished runs made since this time (ms since the epoch), as far back as
   * the change journal goes (flagged `replay`, after the runs' replay); without it, the changes
   * made from the subscription on.
   */
  changesSince?: number;
}

/** A live subscription. */
export interface Subscription extends AsyncDisposable {
  /** Resolves once the runs known at the start were read up to now (replayed). */
  readonly ready: Promise<void>;
  /** Resolves when every followed run has ended (never for `{ live: true }`). */
  readonly ended: Promise<void>;
  /** Records of the followed runs as they were when they joined. */
  runs(): RunRecord[];
  /** Stops following. */
  close(): Promise<void>;
}

interface Followed {
  record: RunRecord;
  tail: EventTail;
  ended: boolean;
  grace: Timer | undefined;
  /** The damage told already (one line per run). */
  damaged: boolean;
}

const FINAL_EVENTS = new Set(["run.finished", "run.lost"]);

/**
 * The delay of the sweep that follows a change. Deno's file watch drops events when its
 * buffer is full, so a named path is a hint, not a promise: after any change every followed
 * run is looked at once more (its events file from its offset, its lock), which also covers
 * whatever was dropped before that change was delivered.
 */
const SWEEP_AFTER_MS = 200;

function inGroup(filter: { group: string; scope?: Scope }, record: RunRecord): boolean {
  return record.group === filter.group &&
    (filter.scope === undefined || inScope(filter.scope, record));
}

/** The final event a final record stands for. */
function finalEvent(record: RunRecord): PitroomEvent {
  const time = record.endedAt ?? record.createdAt;
  if (record.state === "lost") {
    return event("run.lost", time, { run: record.id, reason: record.message ?? "lost" });
  }
  return event("run.finished", time, {
    run: record.id,
    state: record.state,
    outcome: record.outcome ?? "failed",
    exit: record.exit ?? 1,
    ...(record.message ? { message: record.message } : {}),
    ...(record.changes ? { changed: record.changes.files.map((f) => f.path) } : {}),
  });
}

class Feed implements Subscription {
  #sys: HeldSys;
  #paths: StatePaths;
  #filter: FeedFilter;
  #onEvent: (ev: FeedEvent) => void;
  #options: FeedOptions;
  #runs = new Map<string, Followed>();
  #watcher: Deno.FsWatcher | null = null;
  #watching: Promise<void> = Promise.resolve();
  #watchedDirs = new Set<string>();
  #toRead = new Set<string>();
  #toCheck = new Set<string>();
  #toJoin = new Set<string>();
  #toStall = new Set<string>();
  #changes: ChangeTail;
  #readChanges = false;
  #stalls: StallChecks | null;
  #rewatch = false;
  #sweep = false;
  #sweepTimer: Timer | undefined;
  #working: Promise<void> | null = null;
  #closed = false;
  #closing: Promise<void> | undefined;
  #replaying = true;
  #ended = Promise.withResolvers<void>();
  #failed: unknown = undefined;
  readonly ready: Promise<void>;

  constructor(
    sys: HeldSys,
    filter: FeedFilter,
    onEvent: (ev: FeedEvent) => void,
    options: FeedOptions,
  ) {
    this.#sys = sys;
    this.#paths = sys.state.paths;
    this.#filter = filter;
    this.#onEvent = onEvent;
    this.#options = options;
    this.#changes = new ChangeTail(this.#paths);
    this.#stalls = options.onStall === undefined ? null : new StallChecks(sys.clock, (id) => {
      this.#toStall.add(id);
      this.#kick();
    });
    this.ready = this.#start();
    this.ready.catch(() => undefined);
  }

  get ended(): Promise<void> {
    return this.#ended.promise;
  }

  runs(): RunRecord[] {
    return [...this.#runs.values()].map((f) => f.record);
  }

  async #start(): Promise<void> {
    await Deno.mkdir(this.#paths.active, { recursive: true, mode: 0o700 });
    await Deno.mkdir(this.#paths.changes.dir, { recursive: true, mode: 0o700 });
    // Opened before any record is read: a change after that read is in the journal from here.
    const changed = await this.#changes.open(this.#options.changesSince);
    for (const record of await this.#initialRecords()) this.#join(record);
    await this.#openWatch();
    // One pass over what is there now is the replay; changes meanwhile wait for the live pass.
    const initial = (async () => {
      for (const id of [...this.#runs.keys()]) {
        await this.#checkAlive(id);
        await this.#read(id);
      }
    })();
    this.#working = initial;
    try {
      await initial;
      for (const change of changed) this.#tellChange(change);
    } finally {
      this.#working = null;
      this.#replaying = false;
    }
    this.#checkEnded();
    this.#kick();
  }

  async #initialRecords(): Promise<RunRecord[]> {
    const f = this.#filter;
    const ids = "runs" in f
      ? [...f.runs]
      : "live" in f
      ? await listActive(this.#paths)
      : await this.#sys.state.runs.ids();
    const out: RunRecord[] = [];
    for (const id of ids) {
      const read = await this.#sys.state.runs.checked(id);
      const record = read.record;
      if (record === null) {
        // A named run whose record is damaged cannot be followed: it is said, not waited for.
        if ("runs" in f && read.damage !== null) {
          this.#options.onDamage?.(
            new DamagedRecord({ run: id, file: "run.json", detail: read.damage }),
          );
        }
        continue;
      }
      if ("group" in f && !inGroup(f, record)) continue;
      out.push(record);
    }
    return out;
  }

  #join(record: RunRecord): void {
    if (this.#runs.has(record.id)) return;
    this.#runs.set(record.id, {
      record,
      tail: new EventTail(
        this.#paths.run(record.id).events,
        this.#options.fromOffsets?.[record.id] ?? 0,
      ),
      ended: false,
      grace: undefined,
      damaged: false,
    });
    this.#options.onRun?.(record);
    if (!isFinal(record.state)) this.#stalls?.join(record);
  }

  /**
   * Looks at a run whose stall check fell due: its events first, then its record as seen (a run
   * whose supervisor is gone ends as lost here, not stalled), and tells a stall.
   */
  async #checkStall(id: string): Promise<void> {
    await this.#read(id);
    await this.#checkAlive(id);
    const followed = this.#runs.get(id);
    if (followed === undefined || followed.ended || this.#closed) return;
    const stall = this.#stalls?.check(followed.record);
    if (stall) this.#options.onStall?.(id, stall, followed.record);
  }

  /**
   * (Re)opens the one watch over the change journal's folder, `active/` and the folders of the
   * runs still live.
   */
  async #openWatch(): Promise<void> {
    const dirs = new Set<string>([this.#paths.changes.dir]);
    if (!("runs" in this.#filter)) dirs.add(this.#paths.active);
    for (const [id, f] of this.#runs) if (!f.ended) dirs.add(this.#paths.run(id).dir);
    this.#watcher?.close();
    await this.#watching;
    this.#watcher = null;
    this.#watchedDirs = dirs;
    if (this.#closed) return;
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs([...dirs], { recursive: false });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      // A run folder was removed (`pitroom clean`): follow the others. (The journal's folder is
      // made again, and `active/`: a state dir removed under the feed.)
      await Deno.mkdir(this.#paths.changes.dir, { recursive: true, mode: 0o700 });
      await Deno.mkdir(this.#paths.active, { recursive: true, mode: 0o700 });
      for (const [id, f] of this.#runs) {
        if (!f.ended && (await this.#sys.state.runs.read(id)) === null) this.#end(id);
      }
      return await this.#openWatch();
    }
    this.#watcher = watcher;
    this.#watching = (async () => {
      for await (const change of watcher) this.#changed(change.paths);
    })().catch((error) => this.#fail(error));
  }

  #changed(paths: string[]): void {
    // A change the watch had queued before it closed comes after the close: nothing is left to do.
    if (this.#closed) return;
    for (const path of paths) {
      const dir = dirname(path);
      const name = basename(path);
      if (dir === this.#paths.changes.dir) {
        this.#readChanges = true;
        continue;
      }
      if (path === this.#paths.changes.dir) {
        // The journal's folder itself (removed, or made again): watched anew.
        this.#rewatch = true;
        this.#readChanges = true;
        continue;
      }
      if (dir === this.#paths.active) {
        if (isRunId(name) && !this.#runs.has(name)) this.#toJoin.add(name);
        continue;
      }
      const id = basename(dir);
      const followed = this.#runs.get(id);
      if (followed === undefined || followed.ended) continue;
      if (name.startsWith("events.jsonl")) this.#toRead.add(id);
      else if (name === "supervisor.lock") this.#toCheck.add(id);
    }
    this.#sweepTimer ??= this.#sys.clock.after(SWEEP_AFTER_MS, () => {
      this.#sweepTimer = undefined;
      this.#sweep = true;
      this.#kick();
    });
    this.#kick();
  }

  #pending(): boolean {
    return this.#sweep || this.#readChanges ||
      this.#toRead.size + this.#toCheck.size + this.#toJoin.size + this.#toStall.size > 0;
  }

  #kick(): void {
    if (this.#working !== null || this.#closed || !this.#pending()) return;
    this.#working = this.#work().catch((error) => this.#fail(error)).finally(() => {
      this.#working = null;
      this.#kick();
    });
  }

  async #work(): Promise<void> {
    while (!this.#closed && this.#pending()) {
      if (this.#sweep) await this.#sweepAll();
      for (const id of this.#take(this.#toJoin)) {
        const record = await this.#sys.state.runs.read(id);
        if (record === null) continue;
        if ("group" in this.#filter && !inGroup(this.#filter, record)) continue;
        this.#join(record);
        this.#toRead.add(id);
        this.#toCheck.add(id);
        this.#rewatch = true;
      }
      if (this.#rewatch) {
        this.#rewatch = false;
        await this.#openWatch();
        // Whatever was appended while the watch was down is read now.
        for (const [id, f] of this.#runs) if (!f.ended) this.#toRead.add(id);
        this.#readChanges = true;
      }
      for (const id of this.#take(this.#toCheck)) await this.#checkAlive(id);
      for (const id of this.#take(this.#toRead)) await this.#read(id);
      for (const id of this.#take(this.#toStall)) await this.#checkStall(id);
      if (this.#readChanges) {
        this.#readChanges = false;
        for (const change of await this.#changes.read()) this.#tellChange(change);
      }
    }
  }

  /**
   * Tells a change of a finished run: of a run followed here once it has ended (before that, its
   * final event and record are still to come and say it), of any run to a `{ live: true }` feed.
   */
  #tellChange(change: Change): void {
    if (this.#closed) return;
    const followed = this.#runs.get(change.run);
    if (followed === undefined ? !("live" in this.#filter) : !followed.ended) return;
    this.#onEvent({
      run: change.run,
      event: change,
      replay: this.#replaying,
      offset: followed?.tail.offset ?? 0,
    });
  }

  /** Looks at every followed run once more (and at `active/` for runs that joined). */
  async #sweepAll(): Promise<void> {
    this.#sweep = false;
    this.#readChanges = true;
    if (!("runs" in this.#filter)) {
      for (const id of await listActive(this.#paths)) if (!this.#runs.has(id)) this.#toJoin.add(id);
    }
    // One lock probe per supervisor process: a held lock means that process lives on (its
    // runs end through their events); a free one has every run of that process checked.
    const bySupervisor = new Map<number, string[]>();
    for (const [id, f] of this.#runs) {
      if (f.ended) continue;
      this.#toRead.add(id);
      const pid = f.record.supervisorPid;
      if (pid === undefined) this.#toCheck.add(id);
      else bySupervisor.set(pid, [...(bySupervisor.get(pid) ?? []), id]);
    }
    for (const ids of bySupervisor.values()) {
      if (await isLocked(this.#paths.run(ids[0]!).supervisorLock)) continue;
      for (const id of ids) this.#toCheck.add(id);
    }
  }

  #take(set: Set<string>): string[] {
    const items = [...set];
    set.clear();
    return items;
  }

  async #read(id: string): Promise<void> {
    const followed = this.#runs.get(id);
    if (followed === undefined || followed.ended) return;
    const events = await followed.tail.readAt();
    // A damage met by this read is told first, whether or not its final event came before it.
    const damage = followed.damaged ? null : followed.tail.damage;
    if (damage !== null) {
      this.#damaged(followed, { run: id, file: followed.tail.fileName, detail: damage });
    }
    for (const { event, offset } of events) {
      if (this.#closed) return;
      this.#stalls?.seen(id, event.time);
      this.#onEvent({ run: id, event, replay: this.#replaying, offset });
      if (FINAL_EVENTS.has(event.type)) {
        this.#end(id);
        return;
      }
    }
    // What the file cannot tell, the record does: a finished run ends here.
    if (damage !== null) await this.#checkAlive(id);
  }

  #damaged(followed: Followed, damage: ConstructorParameters<typeof DamagedRecord>[0]): void {
    if (followed.damaged) return;
    followed.damaged = true;
    this.#options.onDamage?.(new DamagedRecord(damage));
  }

  /** Marks a run lost when its supervisor is gone; the `run.lost` event then comes as usual. */
  async #checkAlive(id: string): Promise<void> {
    const followed = this.#runs.get(id);
    if (followed === undefined || followed.ended) return;
    const read = await this.#sys.state.runs.checked(id);
    if (read.record === null) {
      // Its record is damaged (the run's state cannot be known) or its folder was cleaned.
      if (read.damage !== null) {
        this.#damaged(followed, { run: id, file: "run.json", detail: read.damage });
      }
      this.#end(id);
      return;
    }
    const record = await asSeen(this.#sys, read.record);
    followed.record = record;
    if (isFinal(record.state)) {
      await this.#read(id);
      if (followed.ended || this.#closed) return;
      // A run that started and ended has an events file: none at all is damage, said once.
      if (followed.tail.missing && record.startedAt !== undefined) {
        this.#damaged(followed, { run: id, file: "events.jsonl.gz", detail: "missing" });
      }
      // The record is final but its final event is not written yet (or never was, when its
      // writer died in between): the record says the same, so it ends the run here.
      this.#onEvent({
        run: id,
        event: finalEvent(record),
        replay: this.#replaying,
        offset: followed.tail.offset,
      });
      this.#end(id);
      return;
    }
    // A close that came while this check read the record has cancelled the timers already.
    if (this.#closed) return;
    if (!record.supervised && followed.grace === undefined) {
      const left = record.createdAt + STARTUP_GRACE_MS - this.#sys.clock.now();
      followed.grace = this.#sys.clock.after(Math.max(0, left) + 50, () => {
        followed.grace = undefined;
        this.#toCheck.add(id);
        this.#kick();
      });
    }
  }

  #end(id: string): void {
    const followed = this.#runs.get(id);
    if (followed === undefined || followed.ended) return;
    followed.ended = true;
    followed.tail.close();
    followed.grace?.cancel();
    this.#stalls?.end(id);
    if (!this.#replaying) this.#checkEnded();
  }

  #checkEnded(): void {
    if ("live" in this.#filter) return;
    if ([...this.#runs.values()].every((f) => f.ended)) this.#ended.resolve();
  }

  #fail(error: unknown): void {
    if (this.#closed) return;
    this.#failed = error;
    this.#ended.reject(error);
  }

  /**
   * A close after the first waits for the first's end (it never returns while work runs); only
   * the first throws what the feed failed with.
   */
  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing.catch(() => undefined);
    this.#closing = this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    this.#sweepTimer?.cancel();
    for (const f of this.#runs.values()) f.grace?.cancel();
    this.#stalls?.close();
    this.#watcher?.close();
    await this.#watching;
    await this.ready.catch(() => undefined);
    await this.#working;
    // Work that was under way when the close began may have set timers after the first cancel.
    this.#sweepTimer?.cancel();
    for (const f of this.#runs.values()) {
      f.grace?.cancel();
      f.tail.close();
    }
    this.#changes.close();
    this.#stalls?.close();
    this.#ended.resolve();
    if (this.#failed !== undefined) throw this.#failed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Follows runs: `onEvent` gets every event of every followed run in order, first the ones
 * written before (flagged `replay`), then each new one as it is appended.
 */
export function subscribe(
  sys: HeldSys,
  filter: FeedFilter,
  onEvent: (ev: FeedEvent) => void,
  options: FeedOptions = {},
): Subscription {
  return new Feed(sys, filter, onEvent, options);
}
