/**
 * Reading a run's events file in either form: `events.jsonl` while the run runs,
 * `events.jsonl.gz` once it finished (see engine/run/finish.ts). A damaged file (a gzip stream cut
 * short or altered, a line that is not an event's JSON) is read up to the damage and says what
 * is wrong, so a reader keeps what it can and names the file instead of failing on it.
 */
import { EVENTS, parseEventLine, type PitroomEvent } from "../events/mod.ts";
import { DamagedRecord } from "../sys/errors.ts";
import { basename, dirname } from "../sys/path.ts";
import { openOrNull } from "../sys/fs.ts";

/** An events file as read. */
export interface EventsRead {
  /** The events, up to the damage when there is one. */
  events: PitroomEvent[];
  /** The file read (`events.jsonl` or `events.jsonl.gz`); null when neither exists. */
  file: string | null;
  /** What is wrong with the file, or null when it is whole. */
  damage: string | null;
}

/** The text of a gzip file up to where it stops being readable, and why it stopped. */
export async function gunzipChecked(
  file: Deno.FsFile,
): Promise<{ text: string; damage: string | null }> {
  const reader = file.readable.pipeThrough(new DecompressionStream("gzip")).getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    // The web stream says every kind of damage (cut short, altered, not gzip) with a TypeError.
    if (!(error instanceof TypeError)) throw error;
    return { text, damage: "not a whole gzip stream: cut short or altered" };
  }
  return { text: text + decoder.decode(), damage: null };
}

/**
 * The events of an events file's text and what is wrong with it. `whole` says the text is a
 * finished file, whose last line is complete too; in a live file the last line may still be
 * being written. A line that is not a JSON object with a `type` and a `time` is damage; an
 * object of a type this version does not know is skipped (a newer Pitroom may have written it).
 */
export function parseEventsChecked(
  text: string,
  options: { whole: boolean },
): { events: PitroomEvent[]; damage: string | null } {
  const lines = text.split("\n");
  const last = lines.pop() ?? "";
  if (options.whole && last !== "") lines.push(last);
  const events: PitroomEvent[] = [];
  for (const [i, line] of lines.entries()) {
    if (line === "") continue;
    const ev = parseEventLine(line);
    if (ev !== null) {
      events.push(ev);
      continue;
    }
    if (!isForeignEvent(line)) return { events, damage: `line ${i + 1} is not an event` };
  }
  return { events, damage: null };
}

/**
 * True for a line that is an event of a type this version does not know (an object with a type
 * and a time): skipped, not damage. A known type whose fields do not fit is damage.
 */
export function isForeignEvent(line: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    if (error instanceof SyntaxError) return false;
    throw error;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { type, time } = value as { type?: unknown; time?: unknown };
  return typeof type === "string" && typeof time === "number" && !(type in EVENTS);
}

/** The events of an events file's text (lines that are not events are skipped). */
export function parseEventsText(text: string): PitroomEvent[] {
  return text.split("\n").filter((l) => l.length > 0).map(parseEventLine).filter((e) => e !== null);
}

/**
 * Every event of the events file at `path` in either form (the plain file first: it is removed
 * only after the compressed one is complete), with what is wrong with it.
 */
export async function readEventsChecked(path: string): Promise<EventsRead> {
  const plain = await openOrNull(path);
  if (plain !== null) {
    const text = await new Response(plain.readable).text();
    return { ...parseEventsChecked(text, { whole: false }), file: basename(path) };
  }
  const gz = await openOrNull(`${path}.gz`);
  if (gz === null) return { events: [], file: null, damage: null };
  const file = basename(`${path}.gz`);
  const { text, damage } = await gunzipChecked(gz);
  const parsed = parseEventsChecked(text, { whole: damage === null });
  if (damage !== null) return { events: parsed.events, file, damage };
  if (text === "") return { events: [], file, damage: "empty" };
  return { ...parsed, file };
}

/**
 * Every event of the events file at `path`, in either form; a damaged file is `DamagedRecord`
 * (for readers that must not go on with part of a run's events).
 */
export async function readEventsFile(path: string): Promise<PitroomEvent[]> {
  const read = await readEventsChecked(path);
  if (read.damage !== null) {
    throw new DamagedRecord({
      run: basename(dirname(path)),
      file: read.file ?? basename(path),
      detail: read.damage,
    });
  }
  return read.events;
}
