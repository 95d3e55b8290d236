/**
 * Reading a run's events file incrementally: the file stays open at the byte offset the last
 * read stopped at (with the unfinished last line kept), so each read costs one read of what was
 * appended since. An open file outlives its removal, so a run that ends and has its file
 * compressed is still read to its end; a file first seen compressed (`events.jsonl.gz`) is
 * read from the compressed copy once.
 */
import { parseEventLine, type PitroomEvent } from "../../events/mod.ts";
import { gunzipChecked, isForeignEvent } from "../../store/events_file.ts";
import { basename } from "../../sys/path.ts";

/**
 * The bytes one read takes (a tail's own buffer, used again by every read: a feed reads 30 files
 * on every change, and a new buffer per read left megabytes of garbage outside the heap, which
 * grows the process's memory long before a collection frees it).
 */
const CHUNK = 16 * 1024;

/** An events file read from where the last read stopped. */
/** One event and the byte offset of the events file just after its line. */
export interface TailEvent {
  event: PitroomEvent;
  offset: number;
}

const encoder = new TextEncoder();

export class EventTail {
  readonly path: string;
  #offset = 0;
  /** Where the line being read starts (the bytes before it are consumed events). */
  #lineStart = 0;
  #partial = "";
  #decoder = new TextDecoder();
  #done = false;
  #file: Deno.FsFile | null = null;
  #buffer: Uint8Array | null = null;
  #damage: string | null = null;
  #missing = false;

  /**
   * Follows the events file at `path` (the plain one; `path.gz` is its compressed form), from
   * the byte offset `from` (the end of a line an earlier reader reported).
   */
  constructor(path: string, from = 0) {
    this.path = path;
    this.#offset = from;
    this.#lineStart = from;
  }

  /**
   * What is wrong with the file, once a read met damage (the events before it were read): a
   * compressed file that is not a whole gzip stream, or a line that is not an event.
   */
  get damage(): string | null {
    return this.#damage;
  }

  /** True when the last read found neither form of the file. */
  get missing(): boolean {
    return this.#missing;
  }

  /** The file's name as a message names it (the compressed one once it was read). */
  get fileName(): string {
    return basename(this.#done ? `${this.path}.gz` : this.path);
  }

  /** Bytes consumed so far. */
  get offset(): number {
    return this.#offset;
  }

  /** The events appended since the last read (lines that are not events are skipped). */
  async read(): Promise<PitroomEvent[]> {
    return (await this.readAt()).map((e) => e.event);
  }

  /** Like `read`, each event with the byte offset after its line (to resume from). */
  async readAt(): Promise<TailEvent[]> {
    if (this.#done) return [];
    if (this.#file === null) {
      try {
        this.#file = await Deno.open(this.path, { read: true });
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return await this.#readCompressed();
        throw error;
      }
      if (this.#offset > 0) await this.#file.seek(this.#offset, Deno.SeekMode.Start);
    }
    const buffer = this.#buffer ??= new Uint8Array(CHUNK);
    let text = this.#partial;
    for (;;) {
      const n = await this.#file.read(buffer);
      if (n === null) break;
      this.#offset += n;
      // Decoded before the next read fills the buffer again.
      text += this.#decoder.decode(buffer.subarray(0, n), { stream: true });
      if (n < CHUNK) break;
    }
    return this.#lines(text);
  }

  /** Closes the file (a later read opens it again where this one stopped). */
  close(): void {
    this.#file?.close();
    this.#file = null;
    this.#buffer = null;
  }

  async #readCompressed(): Promise<TailEvent[]> {
    let file: Deno.FsFile;
    this.#missing = false;
    try {
      file = await Deno.open(`${this.path}.gz`, { read: true });
    } catch (error) {
      // Neither form: the run has not opened its events file yet (or it is gone).
      if (error instanceof Deno.errors.NotFound) {
        this.#missing = true;
        return [];
      }
      throw error;
    }
    const { text, damage } = await gunzipChecked(file);
    this.#done = true;
    if (damage !== null) this.#damage ??= damage;
    const rest = encoder.encode(text).subarray(this.#offset);
    this.#offset += rest.length;
    const events = this.#lines(this.#partial + this.#decoder.decode(rest, { stream: true }));
    // A line cut by the damage is not an event (the damage is said already).
    if (damage !== null) this.#partial = "";
    if (this.#partial.length > 0) {
      const last = parseEventLine(this.#partial);
      this.#lineStart += encoder.encode(this.#partial).length;
      if (last) events.push({ event: last, offset: this.#lineStart });
      else if (!isForeignEvent(this.#partial)) this.#damage ??= "its last line is not an event";
      this.#partial = "";
    }
    return events;
  }

  /** The whole lines of `text` (what was kept of the last read, then what was read). */
  #lines(text: string): TailEvent[] {
    const lines = text.split("\n");
    this.#partial = lines.pop() ?? "";
    const events: TailEvent[] = [];
    for (const line of lines) {
      // A whole line is whole characters: its byte length is exact.
      this.#lineStart += encoder.encode(line).length + 1;
      if (line.length === 0) continue;
      const ev = parseEventLine(line);
      if (ev) events.push({ event: ev, offset: this.#lineStart });
      else if (!isForeignEvent(line)) this.#damage ??= "a line is not an event";
    }
    return events;
  }
}
