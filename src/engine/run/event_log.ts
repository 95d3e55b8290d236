/**
 * A run's events file: one JSON line per event of the union, appended by the run's supervisor.
 */
import type { PitroomEvent } from "../../events/mod.ts";

/** An open events file. */
export class EventLog {
  #file: Deno.FsFile;
  #onEvent: ((ev: PitroomEvent) => void) | undefined;
  #encoder = new TextEncoder();

  private constructor(file: Deno.FsFile, onEvent?: (ev: PitroomEvent) => void) {
    this.#file = file;
    this.#onEvent = onEvent;
  }

  /** Opens (appending to) the events file at `path`. */
  static async open(path: string, onEvent?: (ev: PitroomEvent) => void): Promise<EventLog> {
    const file = await Deno.open(path, { create: true, append: true, mode: 0o600 });
    return new EventLog(file, onEvent);
  }

  /** Appends one event. */
  write(ev: PitroomEvent): void {
    this.#file.writeSync(this.#encoder.encode(JSON.stringify(ev) + "\n"));
    this.#onEvent?.(ev);
  }

  /** Closes the file. */
  close(): void {
    this.#file.close();
  }
}
