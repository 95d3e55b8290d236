/**
 * Writes of a live run's record: serialised (a newer state never loses to an older write) and
 * throttled for progress, with a trailing write so the last progress always lands. A progress
 * write that the file system refuses (`ENOSPC`, the folder gone) is handed to `onFailure` (the
 * lifecycle logs it) and replaced by the next one; any other failure is a bug and `settle`
 * throws it. The run's state changes are written directly by the lifecycle, where any failure is
 * an error.
 */
import type { Clock, Timer } from "../../sys/mod.ts";
import { isOsError } from "../../sys/fs.ts";

/** Options of a `RecordWriter`. */
export interface RecordWriterOptions {
  /** The least time between progress writes. */
  everyMs: number;
  clock: Clock;
  /** Told of a write the file system refused (the writer goes on). */
  onFailure(error: Error & { code: string }): Promise<void>;
}

/** A throttled, serialised writer of one record. */
export class RecordWriter {
  #write: () => Promise<void>;
  #options: RecordWriterOptions;
  #chain: Promise<void> = Promise.resolve();
  #last = Number.NEGATIVE_INFINITY;
  #timer: Timer | undefined;
  #bug: { error: unknown } | undefined;

  /** `write` persists the current record. */
  constructor(write: () => Promise<void>, options: RecordWriterOptions) {
    this.#write = write;
    this.#options = options;
  }

  /** Writes now, after any write already under way. */
  now(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#last = this.#options.clock.now();
    this.#chain = this.#chain.then(this.#write).catch((error) => this.#failed(error));
  }

  /** Writes soon: at once when the last write is old enough, else once the interval has passed. */
  soon(): boolean {
    const wait = this.#last + this.#options.everyMs - this.#options.clock.now();
    if (wait <= 0) {
      this.now();
      return true;
    }
    this.#timer ??= this.#options.clock.after(wait, () => {
      this.#timer = undefined;
      this.now();
    });
    return false;
  }

  /**
   * Cancels a pending trailing write and waits for writes under way; throws the first failure
   * that was not the file system's.
   */
  async settle(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#chain;
    if (this.#bug !== undefined) throw this.#bug.error;
  }

  async #failed(error: unknown): Promise<void> {
    try {
      if (!isOsError(error)) throw error;
      await this.#options.onFailure(error);
    } catch (bug) {
      this.#bug ??= { error: bug };
    }
  }
}
