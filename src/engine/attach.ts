/**
 * `run -f FILE`: files attached to the task. Every worker gets them the same way: their paths
 * and contents follow the task in the prompt, each in a fenced block. The whole attachment may
 * hold at most `ATTACH_LIMIT_BYTES`; past it, or for a file that is not UTF-8 text, the run is
 * refused before anything is created.
 */
import { resolve } from "../sys/path.ts";
import { UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";

/** At most this many bytes of attached files per run (256 KiB). */
export const ATTACH_LIMIT_BYTES = 256 * 1024;

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

async function readText(path: string, typed: string): Promise<Uint8Array> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) throw new UsageError(`Attached file "${typed}" is not a file`);
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Attached file "${typed}" does not exist`);
    }
    throw error;
  }
}

/** Reads the files of `-f` (relative to the caller's directory) for a run working in `dir`. */
export async function attach(sys: Sys, dir: string, typed: readonly string[]): Promise<Attachment> {
  const files: Attached[] = [];
  const blocks: string[] = [];
  let total = 0;
  for (const name of typed) {
    const full = resolve(sys.cwd(), name);
    const bytes = await readText(full, name);
    total += bytes.length;
    if (total > ATTACH_LIMIT_BYTES) {
      throw new UsageError(
        `Attached files are too large: ${total} bytes with "${name}", at most ${ATTACH_LIMIT_BYTES}`,
        { hint: "attach fewer files, or name their paths in the task for the worker to read" },
      );
    }
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
