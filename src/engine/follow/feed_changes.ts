/**
 * Reading the change journal (store/changes.ts) from where the last read stopped, for the feed: it
 * is opened at its end when a feed starts (what happened before, the records say; a resuming
 * reader may ask for the lines since a time instead), and each read gives the `run.changed` lines
 * appended since. When a later file has begun, the one held is complete: it is read to its end,
 * the files between are read whole, and the newest is held from its start; a journal removed under
 * the reader (its folder wiped) is followed again from its first file. A line that is not a change
 * (one a crash cut short) is skipped, never fatal.
 */
import { type EventOf, parseEventLine } from "../../events/mod.ts";
import { isRunId, type StatePaths } from "../../store/paths.ts";
import { journalFile, journalFiles } from "../../store/changes.ts";
import { openOrNull } from "../../sys/fs.ts";

/** One change of a finished run. */
export type Change = EventOf<"run.changed">;

/** The bytes one read takes, into the reader's own buffer (feed_tail.ts says why). */
const CHUNK = 16 * 1024;

/** The journal, read from where the last read stopped. */
export class ChangeTail {
  #paths: StatePaths;
  /** The number of the file held (0: none was there). */
  #n = 0;
  #file: Deno.FsFile | null = null;
  #partial = "";
  #decoder = new TextDecoder();
  #scratch = new Uint8Array(CHUNK);

  constructor(paths: StatePaths) {
    this.#paths = paths;
  }

  /**
   * Opens the journal at its end; with `since` (ms since the epoch), answers the changes made
   * since then that the journal still holds.
   */
  async open(since?: number): Promise<Change[]> {
    const files = await journalFiles(this.#paths);
    const last = files.at(-1);
    if (since === undefined) {
      if (last !== undefined) await this.#hold(last, "end");
      return [];
    }
    const out: Change[] = [];
    for (const n of files.slice(0, -1)) out.push(...(await this.#whole(n)));
    if (last !== undefined) {
      await this.#hold(last, "start");
      out.push(...(await this.#drain()));
    }
    return out.filter((c) => c.time >= since);
  }

  /** The changes appended since the last read. */
  async read(): Promise<Change[]> {
    const out = await this.#drain();
    const files = await journalFiles(this.#paths);
    let later = files.filter((n) => n > this.#n);
    if (later.length === 0) {
      if (!(await this.#removed())) return out;
      // The journal was removed under this reader (its folder wiped): its numbers start again.
      this.close();
      this.#n = 0;
      later = files;
      if (later.length === 0) return out;
    }
    // The file held is complete: the rest of it, the ones between whole, the newest from its start.
    out.push(...(await this.#drain()));
    for (const n of later.slice(0, -1)) out.push(...(await this.#whole(n)));
    await this.#hold(later.at(-1)!, "start");
    out.push(...(await this.#drain()));
    return out;
  }

  /** True when the file held (or the one to hold) is no longer in the journal's folder. */
  async #removed(): Promise<boolean> {
    if (this.#file === null) return this.#n > 0;
    return (await this.#file.stat()).nlink === 0;
  }

  /** Closes the file held. */
  close(): void {
    this.#file?.close();
    this.#file = null;
  }

  async #hold(n: number, at: "start" | "end"): Promise<void> {
    this.close();
    this.#n = n;
    this.#partial = "";
    this.#decoder = new TextDecoder();
    // Gone already (removed two files on): what it had is lost to this reader, not the next.
    this.#file = await openOrNull(journalFile(this.#paths, n));
    if (at === "end") await this.#file?.seek(0, Deno.SeekMode.End);
  }

  /** Every change in file `n` (none when it is gone). */
  async #whole(n: number): Promise<Change[]> {
    const file = await openOrNull(journalFile(this.#paths, n));
    if (file === null) return [];
    try {
      return changesOf(new TextDecoder().decode(await readToEnd(file, this.#scratch)).split("\n"));
    } finally {
      file.close();
    }
  }

  /** The whole lines appended to the file held since the last drain. */
  async #drain(): Promise<Change[]> {
    if (this.#file === null) return [];
    const bytes = await readToEnd(this.#file, this.#scratch);
    if (bytes.length === 0) return [];
    const lines = (this.#partial + this.#decoder.decode(bytes, { stream: true })).split("\n");
    this.#partial = lines.pop() ?? "";
    return changesOf(lines);
  }
}

/** The rest of `file`, read through `scratch` (only the bytes read are kept). */
async function readToEnd(file: Deno.FsFile, scratch: Uint8Array): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const n = await file.read(scratch);
    if (n === null) break;
    parts.push(scratch.slice(0, n));
    size += n;
  }
  if (parts.length === 1) return parts[0]!;
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/**
 * The changes among `lines` (a line cut short, one naming no run id, or anything else, is
 * skipped: a reader goes on to read the record a change names).
 */
function changesOf(lines: readonly string[]): Change[] {
  const out: Change[] = [];
  for (const line of lines) {
    if (line.trim() === "") continue;
    const ev = parseEventLine(line);
    if (ev?.type === "run.changed" && isRunId(ev.run)) out.push(ev);
  }
  return out;
}
