/**
 * `run -f FILE`: files attached to the task. Every worker gets them the same way: their paths
 * and contents follow the task in the prompt, each in a fenced block. The whole attachment may
 * hold at most `ATTACH_LIMIT_BYTES`, and a task as many (`TASK_LIMIT_BYTES`); past it, or for a
 * file that is not UTF-8 text, the run is refused before anything is created. A file is never
 * read past the room left (its size is checked first; a file that grows, or one of /proc that
 * says it is empty, is read to the limit and no further).
 */
import type { HeldSys } from "../../store/state.ts";
import { resolve } from "../../sys/path.ts";
import { UsageError } from "../../sys/errors.ts";
import { kindOf, readCappedBytes, sizeText } from "../../sys/read.ts";

/** At most this many bytes of attached files per run (256 KiB). */
export const ATTACH_LIMIT_BYTES = 256 * 1024;

/** At most this many bytes in a task (the same as attached files: 256 KiB). */
export const TASK_LIMIT_BYTES = ATTACH_LIMIT_BYTES;

/** Refuses a task (or any of a crew's) longer than `TASK_LIMIT_BYTES`. */
export function checkTaskSize(tasks: readonly string[]): void {
  for (const task of tasks) {
    const bytes = new TextEncoder().encode(task).length;
    if (bytes > TASK_LIMIT_BYTES) {
      throw new UsageError(
        `The task holds ${bytes} bytes, more than a task may (${sizeText(TASK_LIMIT_BYTES)})`,
        { hint: "write the long part into a file in the repository and name it in the task" },
      );
    }
  }
}

/** One attached file, as the record keeps it. */
export interface Attached {
  /** The path as the worker sees it (relative to the run's directory when inside it). */
  path: string;
  bytes: number;
}

/** The attached files and the text that carries them into the prompt. */
export interface Attachment {
  files: Attached[];
  /** Appended to the task; empty without files. */
  text: string;
}

/**
 * An attached file's bytes when they fit in `room`; else how long it is (`size`, or null when
 * it said it fit and then held more: a file that grows, or one of /proc).
 */
async function readAttached(
  path: string,
  typed: string,
  room: number,
): Promise<{ bytes: Uint8Array } | { size: number | null }> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) {
      throw new UsageError(`Attached file "${typed}" is ${kindOf(info)}, not a file`);
    }
    if (info.size > room) return { size: info.size };
    const file = await Deno.open(path);
    const read = await readCappedBytes(file.readable, room);
    return read.over ? { size: null } : { bytes: read.bytes };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Attached file "${typed}" does not exist`);
    }
    const detail = error instanceof Error ? error.message : String(error);
    throw new UsageError(`Attached file "${typed}" cannot be read: ${detail}`);
  }
}

/** Reads the files of `-f` (relative to the caller's directory) for a run working in `dir`. */
export async function attach(
  sys: HeldSys,
  dir: string,
  typed: readonly string[],
): Promise<Attachment> {
  const files: Attached[] = [];
  const blocks: string[] = [];
  let total = 0;
  for (const name of typed) {
    const full = resolve(sys.cwd(), name);
    const read = await readAttached(full, name, ATTACH_LIMIT_BYTES - total);
    if (!("bytes" in read)) {
      const size = read.size === null ? `more than ${ATTACH_LIMIT_BYTES}` : `${total + read.size}`;
      throw new UsageError(
        `Attached files are too large: ${size} bytes with "${name}", at most ${ATTACH_LIMIT_BYTES}`,
        { hint: "attach fewer files, or name their paths in the task for the worker to read" },
      );
    }
    const bytes = read.bytes;
    total += bytes.length;
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      throw new UsageError(`Attached file "${name}" is not UTF-8 text`);
    }
    const path = full.startsWith(`${dir}/`) ? full.slice(dir.length + 1) : full;
    const fence = "`".repeat(Math.max(3, longestRun(text) + 1));
    files.push({ path, bytes: bytes.length });
    blocks.push(`File ${path}:\n${fence}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}`);
  }
  const text = blocks.length === 0 ? "" : `\n\nAttached files:\n\n${blocks.join("\n\n")}`;
  return { files, text };
}

function longestRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}
