/**
 * Reading what the history keeps of a run from its folder: the record, the steps from the
 * events file (plain or compressed) and the patch.
 */
import type { PitroomEvent } from "../events/mod.ts";
import { parseEventsText, readEventsFile } from "../store/events_file.ts";
import type { StatePaths } from "../store/paths.ts";
import type { RunRecord } from "../store/record.ts";
import { stepsOf } from "./row.ts";
import type { RunFiles } from "./write.ts";

/** A patch larger than this is not copied into the history (the run folder keeps it). */
const PATCH_MAX = 8 * 1024 * 1024;

async function readPatch(path: string): Promise<string | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  if (info.size > PATCH_MAX) {
    return `# The patch (${info.size} bytes) was too large for the history; see ${path}\n`;
  }
  return await Deno.readTextFile(path);
}

/** Options of `readRunFiles`. */
export interface ReadOptions {
  /**
   * A synchronous gunzip (node:zlib's, which a bulk import loads once: several times faster than
   * a stream per file). Without it the events are read through a DecompressionStream.
   */
  gunzip?: (bytes: Uint8Array) => Uint8Array;
}

async function readEvents(path: string, gzPath: string, options: ReadOptions) {
  if (options.gunzip === undefined) return await readEventsFile(path);
  try {
    return parseEventsText(await Deno.readTextFile(path));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(gzPath);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [] as PitroomEvent[];
    throw error;
  }
  try {
    return parseEventsText(decoder.decode(options.gunzip(bytes)));
  } catch (error) {
    // node:zlib reports a truncated or damaged stream with a plain Error; name it as the
    // stream reader does.
    throw new TypeError(`damaged events file ${gzPath}`, { cause: error });
  }
}

const decoder = new TextDecoder();

/** What the history keeps of `record`, read from its run folder. */
export async function readRunFiles(
  paths: StatePaths,
  record: RunRecord,
  options: ReadOptions = {},
): Promise<RunFiles> {
  const runPaths = paths.run(record.id);
  let steps: RunFiles["steps"] = [];
  try {
    steps = stepsOf(await readEvents(runPaths.events, runPaths.eventsGz, options));
  } catch (error) {
    // A truncated .gz (a crash while compressing) fails to decompress: index the run without
    // its steps rather than not at all.
    if (!(error instanceof TypeError)) throw error;
  }
  return { record, steps, patch: await readPatch(runPaths.patch) };
}
