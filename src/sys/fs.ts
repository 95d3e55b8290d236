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

/** `lstatOrNull` without leaving the event loop (see confine/sandbox/paths.ts). */
export function lstatOrNullSync(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
}

/** True when something (a file, a directory, a link) is at `path`. */
/** The file at `path` opened for reading, or null when there is none. */
export async function openOrNull(path: string): Promise<Deno.FsFile | null> {
  try {
    return await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

export async function exists(path: string): Promise<boolean> {
  return (await lstatOrNull(path)) !== null;
}

/** True when the folder `path` holds anything; false when it is empty or not there. */
export async function hasEntries(path: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(path)) return true;
    return false;
  } catch (error) {
    if (missing(error)) return false;
    throw error;
  }
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

/**
 * True for an error saying the disk is full: `ENOSPC`, `EDQUOT` (a quota), or SQLite's
 * `SQLITE_FULL` ("database or disk is full").
 */
export function isNoSpace(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, errcode } = error as Error & { code?: unknown; errcode?: unknown };
  if (code === "ENOSPC" || code === "EDQUOT") return true;
  // node:sqlite: the primary result code (the low byte of an extended one).
  if (typeof errcode === "number" && (errcode & 0xff) === 13) return true;
  return /No space left on device|Disk quota exceeded|database or disk is full/i.test(
    error.message,
  );
}

/** True for an error saying nothing can be written there: a full disk or a read-only one. */
export function isUnwritable(error: unknown): boolean {
  if (isNoSpace(error)) return true;
  return error instanceof Error && (error as Error & { code?: unknown }).code === "EROFS";
}

/**
 * True when `dir` cannot take a small file because its disk is full (a probe written and
 * removed at once): tells a full disk behind an error that does not say so (SQLite's "disk I/O
 * error" when it cannot grow its shared-memory file).
 */
export function noSpaceIn(dir: string): boolean {
  const probe = `${dir}/.space-probe-${Deno.pid}`;
  try {
    Deno.writeFileSync(probe, new Uint8Array(16 * 1024), { mode: 0o600 });
    Deno.removeSync(probe);
    return false;
  } catch (error) {
    try {
      Deno.removeSync(probe);
    } catch {
      // It was never made.
    }
    return isNoSpace(error);
  }
}
