/**
 * Writes of a live run's record: serialised (a newer state never loses to an older write) and
 * throttled for progress, with a trailing write so the last progress always lands. Progress
 * writes are best effort: a failed one is replaced by the next, and the run's state changes are
 * written directly by the lifecycle, where a failure is an error.
 */

/** A throttled, serialised writer of one record. */
export class RecordWriter {
  #write: () => Promise<void>;
  #everyMs: number;
  #chain: Promise<void> = Promise.resolve();
  #last = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #now: () => number;

  /** `write` persists the current record; `everyMs` is the least time between progress writes. */
  constructor(write: () => Promise<void>, options: { everyMs: number; now: () => number }) {
    this.#write = write;
    this.#everyMs = options.everyMs;
    this.#now = options.now;
  }

  /** Writes now, after any write already under way. */
  now(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#last = this.#now();
    this.#chain = this.#chain.then(this.#write);
    return this.#chain;
  }

  /** Writes soon: at once when the last write is old enough, else once the interval has passed. */
  soon(): boolean {
    const wait = this.#last + this.#everyMs - this.#now();
    if (wait <= 0) {
      this.now().catch(() => undefined);
      return true;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.now().catch(() => undefined);
    }, wait);
    return false;
  }

  /** Cancels a pending trailing write and waits for writes under way. */
  async settle(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#chain.catch(() => undefined);
  }
}
