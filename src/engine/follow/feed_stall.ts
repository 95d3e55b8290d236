/**
 * The stall checks of one feed (feed.ts): per followed run one timer, armed for the time its
 * worker's silence would reach the run's stall time; when it fires the feed reads the run's
 * record and this tells whether the run is stalled (engine/core/stall.ts). A stall is told once
 * per silence; the run's next event ends it and arms the timer again. Only reads: nothing here
 * writes a record or stops a worker.
 */
import type { RunRecord } from "../../store/record.ts";
import type { Clock, Timer } from "../../sys/mod.ts";
import { type Stall, stallAfterOf, stallOf, workerSince } from "../core/stall.ts";

interface Watched {
  /** The run's stall time (its record's). */
  afterMs: number;
  /** The time of the latest event read (a sign of life the record may not carry yet). */
  seen: number;
  timer: Timer | undefined;
  /** When the armed check falls due. */
  due: number;
  /** The `since` of the stall told, until the run's next event. */
  told: number | null;
}

/** The stall timers of a feed's runs. */
export class StallChecks {
  #clock: Clock;
  #due: (id: string) => void;
  #runs = new Map<string, Watched>();

  /** `due(id)` is called when a run's check falls due: the feed then reads its record. */
  constructor(clock: Clock, due: (id: string) => void) {
    this.#clock = clock;
    this.#due = due;
  }

  /** A live run joined the feed. */
  join(record: RunRecord): void {
    if (this.#runs.has(record.id)) return;
    this.#runs.set(record.id, {
      afterMs: stallAfterOf(record),
      seen: 0,
      timer: undefined,
      due: Number.POSITIVE_INFINITY,
      told: null,
    });
    this.#arm(record.id, workerSince(record));
  }

  /**
   * An event of the run was read: a sign of life, which ends a stall told. A check armed for
   * later than this silence could stall (one counted from a queued run's wait) comes sooner.
   */
  seen(id: string, time: number): void {
    const run = this.#runs.get(id);
    if (run === undefined) return;
    run.seen = Math.max(run.seen, time);
    if (run.told === null && run.due <= run.seen + run.afterMs) return;
    run.told = null;
    this.#arm(id, run.seen);
  }

  /**
   * The run's record, read when its check fell due (its events read up to then): the stall to
   * tell, or null (and the check armed again for when it may be one).
   */
  check(record: RunRecord): Stall | null {
    const run = this.#runs.get(record.id);
    if (run === undefined) return null;
    const stall = stallOf(record, this.#clock.now(), run.seen);
    if (stall === null) {
      this.#arm(record.id, workerSince(record));
      return null;
    }
    // Stalled: told once; the run's next event arms the check again.
    if (stall.since === run.told) return null;
    run.told = stall.since;
    return stall;
  }

  /** The run ended (or left the feed): no more checks. */
  end(id: string): void {
    this.#runs.get(id)?.timer?.cancel();
    this.#runs.delete(id);
  }

  /** Cancels every timer. */
  close(): void {
    for (const run of this.#runs.values()) run.timer?.cancel();
    this.#runs.clear();
  }

  /** Arms the run's check for when a silence since `since` (null: now) would be a stall. */
  #arm(id: string, since: number | null): void {
    const run = this.#runs.get(id);
    if (run === undefined) return;
    run.timer?.cancel();
    const now = this.#clock.now();
    run.due = Math.max(since ?? now, run.seen) + run.afterMs;
    run.timer = this.#clock.after(Math.max(0, run.due - now), () => {
      run.timer = undefined;
      run.due = Number.POSITIVE_INFINITY;
      this.#due(id);
    });
  }
}
