/**
 * The change journal: when a finished run's record changes (an apply, a revert, a discard, an
 * audit or a review of it), every live reader hears of it through a small journal per state dir,
 * one `run.changed` event a line (the run's own events file is closed and compressed once it
 * ended). The record is written first, then the line, so a reader that reads the line reads the
 * record as it is now.
 *
 * The journal is numbered files, `changes/<n>.jsonl`, appended to the highest. Appends hold the
 * journal's lock (flock: the kernel releases it when its holder dies), so lines never interleave.
 * Past `JOURNAL_MAX_BYTES` the append that crossed it begins file n+1 (empty) and removes the
 * files before n: a reader that finds n+1 knows n is complete (every append to it came before,
 * under the lock) and a name is never used twice. A line cut short by a crash stays as it is
 * (readers skip it, engine/follow/feed_changes.ts); the next append starts on a line of its own.
 */
import type { EventOf } from "../events/mod.ts";
import type { StatePaths } from "./paths.ts";
import { join } from "../sys/path.ts";
import { withLock } from "./locks.ts";
import { removeIfThere } from "../sys/fs.ts";

/** The size past which the journal goes on in a new file (a line is ~100 bytes). */
export const JOURNAL_MAX_BYTES = 1024 * 1024;

const NAME = /^([1-9]\d{0,14})\.jsonl$/;
const encoder = new TextEncoder();

/** The journal's file of number `n`. */
export function journalFile(paths: StatePaths, n: number): string {
  return join(paths.changes.dir, `${n}.jsonl`);
}

/** The numbers of the journal's files, lowest first (none when it has none). */
export async function journalFiles(paths: StatePaths): Promise<number[]> {
  const out: number[] = [];
  try {
    for await (const entry of Deno.readDir(paths.changes.dir)) {
      const n = NAME.exec(entry.name)?.[1];
      if (n !== undefined && entry.isFile) out.push(Number(n));
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return out.sort((a, b) => a - b);
}

/** True when the file of `size` bytes ends with a newline (or is empty). */
async function endsWhole(file: Deno.FsFile, size: number): Promise<boolean> {
  if (size === 0) return true;
  await file.seek(size - 1, Deno.SeekMode.Start);
  const last = new Uint8Array(1);
  return (await file.read(last)) === 1 && last[0] === 0x0a;
}

/** Appends one change to the journal (going on in a new file when it grew past `maxBytes`). */
export async function appendChange(
  paths: StatePaths,
  change: EventOf<"run.changed">,
  options: { maxBytes?: number } = {},
): Promise<void> {
  await Deno.mkdir(paths.changes.dir, { recursive: true, mode: 0o700 });
  await withLock(paths.changes.lock, async () => {
    const files = await journalFiles(paths);
    const n = files.at(-1) ?? 1;
    const file = await Deno.open(journalFile(paths, n), {
      read: true,
      append: true,
      create: true,
      mode: 0o600,
    });
    let size: number;
    try {
      size = (await file.stat()).size;
      // A line a crash cut short is left alone: this one starts after it.
      const bytes = encoder.encode(
        `${(await endsWhole(file, size)) ? "" : "\n"}${JSON.stringify(change)}\n`,
      );
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
      size += bytes.length;
    } finally {
      file.close();
    }
    if (size <= (options.maxBytes ?? JOURNAL_MAX_BYTES)) return;
    // File n is complete: the next one is there before any reader could miss n's last line.
    await Deno.writeFile(journalFile(paths, n + 1), new Uint8Array(), { mode: 0o600 });
    for (const old of files) if (old < n) await removeIfThere(journalFile(paths, old));
  });
}
