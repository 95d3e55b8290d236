/**
 * The files of a finished run: the raw stream and the events file are compressed, stderr is kept
 * only for runs that did not succeed, and the attempts' private dirs (profiles, throwaway index,
 * copies of a CLI's credentials) are removed.
 */
import type { RunPaths } from "../../store/paths.ts";
import { removeIfThere } from "../../sys/fs.ts";

/**
 * Compresses `source` into `target` and removes `source`. The compressed file appears complete
 * (written under a temporary name, then renamed) before the plain one goes, so a reader that
 * tries the plain file first and the compressed one second always finds one whole file.
 */
async function gzipFile(source: string, target: string): Promise<void> {
  let input: Deno.FsFile;
  try {
    input = await Deno.open(source, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  const temp = `${target}.tmp`;
  const output = await Deno.open(temp, { write: true, create: true, truncate: true, mode: 0o600 });
  await input.readable.pipeThrough(new CompressionStream("gzip")).pipeTo(output.writable);
  await Deno.rename(temp, target);
  await Deno.remove(source);
}

/** Compresses the raw stream and the events file, and drops stderr of a successful run. */
export async function finishFiles(paths: RunPaths, ok: boolean): Promise<void> {
  await gzipFile(paths.stream, paths.streamGz);
  await gzipFile(paths.events, paths.eventsGz);
  if (ok) await removeIfThere(paths.stderr);
  await removeIfThere(paths.private);
}
