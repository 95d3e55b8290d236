/**
 * Reading what the history keeps of a run from its folder: the steps from the events file
 * (plain or compressed) and the patch. One run at a time (`readRunFiles`, when a run finishes or
 * is cleaned) reads asynchronously with web streams; a bulk import (`readRunFilesSync`) reads
 * synchronously with node:zlib, several times faster per folder.
 */
import { isRunRecord, type RunRecord } from "../record.ts";
import { parseEventsText, readEventsFile } from "../events_file.ts";
import type { StatePaths } from "../paths.ts";
import { stepsOf } from "./row.ts";
import type { RunFiles } from "./write.ts";

/** A patch larger than this is not copied into the history (the run folder keeps it). */
const PATCH_MAX = 8 * 1024 * 1024;

function tooLarge(path: string, size: number): string {
  return `# The patch (${size} bytes) was too large for the history; see ${path}\n`;
}

function notFound(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound;
}

async function readPatch(path: string): Promise<string | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
  return info.size > PATCH_MAX ? tooLarge(path, info.size) : await Deno.readTextFile(path);
}

function readPatchSync(path: string): string | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
  return info.size > PATCH_MAX ? tooLarge(path, info.size) : Deno.readTextFileSync(path);
}

/** What the history keeps of `record`, read from its run folder. */
export async function readRunFiles(paths: StatePaths, record: RunRecord): Promise<RunFiles> {
  const runPaths = paths.run(record.id);
  let steps: RunFiles["steps"] = [];
  try {
    steps = stepsOf(await readEventsFile(runPaths.events));
  } catch (error) {
    // A truncated .gz (a crash while compressing) fails to decompress: index the run without
    // its steps rather than not at all.
    if (!(error instanceof TypeError)) throw error;
  }
  return { record, steps, patch: await readPatch(runPaths.patch) };
}

const decoder = new TextDecoder();

function eventsTextSync(path: string, gzPath: string, gunzip: (b: Uint8Array) => Uint8Array) {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (!notFound(error)) throw error;
  }
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(gzPath);
  } catch (error) {
    if (notFound(error)) return "";
    throw error;
  }
  try {
    return decoder.decode(gunzip(bytes));
  } catch {
    // A truncated or damaged .gz (node:zlib says so with a plain Error): no steps, as above.
    return "";
  }
}

/**
 * The record of run `id` and what the history keeps of it, read synchronously; null when the
 * folder has no readable record. `gunzip` is node:zlib's `gunzipSync`, loaded once by the caller.
 */
export function readRunFilesSync(
  paths: StatePaths,
  id: string,
  gunzip: (bytes: Uint8Array) => Uint8Array,
): RunFiles | null {
  const runPaths = paths.run(id);
  let record: unknown;
  try {
    record = JSON.parse(Deno.readTextFileSync(runPaths.record));
  } catch (error) {
    if (notFound(error) || error instanceof SyntaxError) return null;
    throw error;
  }
  if (!isRunRecord(record)) return null;
  const text = eventsTextSync(runPaths.events, runPaths.eventsGz, gunzip);
  return { record, steps: stepsOf(parseEventsText(text)), patch: readPatchSync(runPaths.patch) };
}
