/**
 * One job at a time, run once more when asked meanwhile: `kick()` starts the job unless it is
 * running; a kick while it runs makes it run again when this run ends (kicks meanwhile count as
 * one). No kick is lost: whether to run again is decided in the same step that ends the running,
 * so a kick that comes after that decision starts a run of its own.
 */
export class Rerunner {
  readonly #job: () => Promise<void>;
  readonly #onError: (error: unknown) => void;
  #running = false;
  #again = false;

  /** `onError` is told when a run fails; the next kick runs the job again. */
  constructor(job: () => Promise<void>, onError: (error: unknown) => void) {
    this.#job = job;
    this.#onError = onError;
  }

  /** Runs the job now, or once more after the run under way. */
  kick(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    void this.#loop();
  }

  async #loop(): Promise<void> {
    try {
      do {
        this.#again = false;
        await this.#job();
      } while (this.#again);
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#running = false;
    }
  }
}
