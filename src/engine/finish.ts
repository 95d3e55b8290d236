/**
 * The files of a finished run: the raw stream is compressed, stderr is kept only for runs that
 * did not succeed, and the attempts' private dirs (profiles, throwaway index, copies of a CLI's
 * credentials) are removed.
 */
import type { RunPaths } from "../store/paths.ts";
import { removeIfThere } from "../sys/fs.ts";

/** Compresses the raw stream and drops stderr of a successful run. */
export async function finishFiles(paths: RunPaths, ok: boolean): Promise<void> {
  try {
    const source = await Deno.open(paths.stream, { read: true });
    const target = await Deno.open(paths.streamGz, {
      write: true,
      create: true,
      truncate: true,
      mode: 0o600,
    });
    await source.readable.pipeThrough(new CompressionStream("gzip")).pipeTo(target.writable);
    await Deno.remove(paths.stream);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (ok) await removeIfThere(paths.stderr);
  await removeIfThere(paths.private);
}
