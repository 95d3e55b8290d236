/**
 * Reading a run's events file in either form: `events.jsonl` while the run runs,
 * `events.jsonl.gz` once it finished (see engine/finish.ts).
 */
import { parseEventLine, type PitroomEvent } from "../events/mod.ts";

/** The text of a file, gunzipped when `gzip`; null when it is not there. */
async function readMaybe(path: string, gzip: boolean): Promise<string | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const stream = gzip ? file.readable.pipeThrough(new DecompressionStream("gzip")) : file.readable;
  return await new Response(stream).text();
}

/**
 * The raw text of the events file at `path` (the plain file, else `path.gz`); "" when neither
 * exists. The plain file is tried first: it is removed only after the compressed one is complete.
 */
async function readEventsText(path: string): Promise<string> {
  return (await readMaybe(path, false)) ?? (await readMaybe(`${path}.gz`, true)) ?? "";
}

/** The events of an events file's text (lines that are not events are skipped). */
export function parseEventsText(text: string): PitroomEvent[] {
  return text.split("\n").filter((l) => l.length > 0).map(parseEventLine).filter((e) => e !== null);
}

/** Every event of the events file at `path`, in either form (lines that are not events are skipped). */
export async function readEventsFile(path: string): Promise<PitroomEvent[]> {
  return parseEventsText(await readEventsText(path));
}
