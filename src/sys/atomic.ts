/**
 * Atomic file writes (temp file + rename) and tolerant JSON reads.
 */
import { basename, dirname, join } from "./path.ts";

let counter = 0;

/** Writes `text` to `path` atomically: readers see the old or the new file, never a torn one. */
export async function writeTextAtomic(path: string, text: string, mode = 0o600): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${Deno.pid}.${counter++}.tmp`);
  await Deno.writeTextFile(temp, text, { mode });
  try {
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => undefined);
    throw error;
  }
}

/** Writes JSON atomically, pretty-printed. */
export function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  return writeTextAtomic(path, JSON.stringify(value, null, 2) + "\n");
}

/** Reads a JSON file, or returns null when it does not exist. */
export async function readJsonOrNull(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  return JSON.parse(text);
}
