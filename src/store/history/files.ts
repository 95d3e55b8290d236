/**
 * Reading what the history keeps of a run from its folder: the steps from the events file
 * (plain or compressed) and the patch. One run at a time (`readRunFiles`, when a run finishes or
 * is cleaned) reads asynchronously with web streams; a bulk import (`readRunFilesSync`) reads
 * synchronously with node:zlib, several times faster per folder (a damaged compressed file is
 * read again the slow way, which keeps the events before the damage).
 *
 * A damaged file is kept out, never taken for a whole one: a damaged events file gives the steps
 * before the damage and keeps the steps the history had (`keep.steps`); a patch that does not
 * match the record's digest is not copied (`keep.patch`); each is listed in `damaged`.
 */
import { isFinal, type RunRecord } from "../record.ts";
import { parseEventsChecked, readEventsChecked } from "../events_file.ts";
import { patchDigest } from "../patch_file.ts";
import type { StatePaths } from "../paths.ts";
import { parseRecordText } from "../runs.ts";
import { stepsOf } from "./row.ts";
import { statOrNullSync } from "../../sys/fs.ts";
import type { RunFiles } from "./write.ts";
import { readHandoversSync } from "../returned.ts";

/** A patch larger than this is not copied into the history (the run folder keeps it). */
const PATCH_MAX = 8 * 1024 * 1024;

/** A damaged file of a run, as an import lists it. */
export interface DamagedFile {
  run: string;
  file: string;
  detail: string;
}

function tooLarge(path: string, size: number): string {
  return `# The patch (${size} bytes) was too large for the history; see ${path}\n`;
}

function notFound(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound;
}

const decoder = new TextDecoder();

/** The patch text for the history from its bytes (null: none), checked against `digest`. */
async function patchText(
  path: string,
  bytes: Uint8Array | null,
  digest: string | undefined,
): Promise<{ patch: string | null; damage: string | null }> {
  if (bytes === null) return { patch: null, damage: digest === undefined ? null : "missing" };
  if (digest !== undefined && (await patchDigest(bytes)) !== digest) {
    return { patch: null, damage: "cut short or altered (its digest in run.json differs)" };
  }
  return {
    patch: bytes.length > PATCH_MAX ? tooLarge(path, bytes.length) : decoder.decode(bytes),
    damage: null,
  };
}

function readBytesSync(path: string): Uint8Array | null {
  try {
    return Deno.readFileSync(path);
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
}

async function readBytes(path: string): Promise<Uint8Array | null> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
}

/** `RunFiles` of a record, its events as read and its patch, with the damage found. */
async function assemble(
  paths: StatePaths,
  record: RunRecord,
  events: {
    events: ReturnType<typeof parseEventsChecked>["events"];
    file: string | null;
    damage: string | null;
  },
  patchBytes: Uint8Array | null,
): Promise<RunFiles> {
  const runPaths = paths.run(record.id);
  const damaged: DamagedFile[] = [];
  // A run that started and ended has an events file: none at all is damage.
  const missing = events.file === null && record.startedAt !== undefined && isFinal(record.state);
  const eventsDamage = events.damage ?? (missing ? "missing" : null);
  if (eventsDamage !== null) {
    damaged.push({ run: record.id, file: events.file ?? "events.jsonl.gz", detail: eventsDamage });
  }
  const patch = await patchText(runPaths.patch, patchBytes, record.changes?.patchDigest);
  if (patch.damage !== null) {
    damaged.push({ run: record.id, file: "patch.diff", detail: patch.damage });
  }
  return {
    record,
    steps: stepsOf(events.events),
    patch: patch.patch,
    handovers: () => readHandoversSync(paths, record.id),
    ...(damaged.length === 0
      ? {}
      : { keep: { steps: eventsDamage !== null, patch: patch.damage !== null }, damaged }),
  };
}

/** What the history keeps of `record`, read from its run folder. */
export async function readRunFiles(paths: StatePaths, record: RunRecord): Promise<RunFiles> {
  const runPaths = paths.run(record.id);
  const events = await readEventsChecked(runPaths.events);
  return await assemble(paths, record, events, await readBytes(runPaths.patch));
}

/** The events file's text read synchronously, or why it cannot be (null: the slow way). */
function eventsSync(
  path: string,
  gzPath: string,
  gunzip: (b: Uint8Array) => Uint8Array,
): { text: string; whole: boolean; file: string | null } | null {
  const plain = readBytesSync(path);
  if (plain !== null) return { text: decoder.decode(plain), whole: false, file: "events.jsonl" };
  const bytes = readBytesSync(gzPath);
  if (bytes === null) return { text: "", whole: true, file: null };
  try {
    const text = decoder.decode(gunzip(bytes));
    // An empty file (or one holding nothing) is no finished events file.
    return text === "" ? null : { text, whole: true, file: "events.jsonl.gz" };
  } catch {
    // node:zlib says any damage with a plain Error: read it the slow way, which keeps the events
    // before the damage and says what is wrong.
    return null;
  }
}

/** A run folder as a bulk import reads it. */
export type FolderFiles =
  | { files: RunFiles; damage?: undefined }
  /** The record cannot be read: `damage` says why (null: no record there at all). */
  | { files: null; damage: DamagedFile | null };

/**
 * The record of run `id` and what the history keeps of it, read synchronously where it can be.
 * `gunzip` is node:zlib's `gunzipSync`, loaded once by the caller.
 */
export async function readRunFolder(
  paths: StatePaths,
  id: string,
  gunzip: (bytes: Uint8Array) => Uint8Array,
  /** A copy of the final record (a pending mark's), read where `run.json` cannot be. */
  spare?: string,
): Promise<FolderFiles> {
  const runPaths = paths.run(id);
  const there = () => statOrNullSync(runPaths.dir)?.isDirectory === true;
  const text = readBytesSync(runPaths.record);
  const kept = spare === undefined || spare === "" ? null : parseRecordText(spare, id).record;
  if (text === null && !(kept !== null && there())) {
    // A folder listed a moment ago that is gone now was cleaned: nothing is damaged.
    return {
      files: null,
      damage: there() ? { run: id, file: "run.json", detail: "missing" } : null,
    };
  }
  const read = text === null ? null : parseRecordText(decoder.decode(text), id);
  const record = read?.record ?? kept;
  if (record === null) {
    return {
      files: null,
      damage: { run: id, file: "run.json", detail: read?.damage ?? "unreadable" },
    };
  }
  const sync = eventsSync(runPaths.events, runPaths.eventsGz, gunzip);
  const events = sync === null
    ? await readEventsChecked(runPaths.events)
    : { ...parseEventsChecked(sync.text, { whole: sync.whole }), file: sync.file };
  return { files: await assemble(paths, record, events, readBytesSync(runPaths.patch)) };
}
