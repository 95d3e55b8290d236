/**
 * File checks where "not there" is an answer, not an error.
 */

function missing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
}

/** The path's own info (a link is not followed), or null when nothing is there. */
export async function lstatOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
}

/** True when something (a file, a directory, a link) is at `path`. */
export async function exists(path: string): Promise<boolean> {
  return (await lstatOrNull(path)) !== null;
}

/** The info of what `path` points to, or null when nothing is there (synchronous). */
export function statOrNullSync(path: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(path);
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
}

/** Removes a file or a whole directory; nothing there is fine. */
export async function removeIfThere(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
  } catch (error) {
    if (!missing(error)) throw error;
  }
}

/**
 * True for an error the operating system reported (a file-system call that failed: `ENOENT`,
 * `EACCES`, `ENOSPC`, `EIO`, ...); false for anything else, which is a bug to surface.
 */
export function isOsError(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code);
}
