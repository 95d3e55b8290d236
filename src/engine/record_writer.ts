/**
 * Writes of a live run's record: serialised (a newer state never loses to an older write) and
 * throttled for progress, with a trailing write so the last progress always lands. Progress
 * writes are best effort: a failed one is replaced by the next, and the run's state changes are
 * written directly by the lifecycle, where a failure is an error.
 */
import type { Clock, Timer } from "../sys/mod.ts";

/** A throttled, serialised writer of one record. */
export class RecordWriter {
  #write: () => Promise<void>;
  #everyMs: number;
  #chain: Promise<void> = Promise.resolve();
  #last = Number.NEGATIVE_INFINITY;
  #timer: Timer | undefined;
  #clock: Clock;

  /** `write` persists the current record; `everyMs` is the least time between progress writes. */
  constructor(write: () => Promise<void>, options: { everyMs: number; clock: Clock }) {
    this.#write = write;
    this.#everyMs = options.everyMs;
    this.#clock = options.clock;
  }

  /** Writes now, after any write already under way. */
  now(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#last = this.#clock.now();
    this.#chain = this.#chain.then(this.#write);
    return this.#chain;
  }

  /** Writes soon: at once when the last write is old enough, else once the interval has passed. */
  soon(): boolean {
    const wait = this.#last + this.#everyMs - this.#clock.now();
    if (wait <= 0) {
      this.now().catch(() => undefined);
      return true;
    }
    this.#timer ??= this.#clock.after(wait, () => {
      this.#timer = undefined;
      this.now().catch(() => undefined);
    });
    return false;
  }

  /** Cancels a pending trailing write and waits for writes under way. */
  async settle(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#chain.catch(() => undefined);
  }
}
