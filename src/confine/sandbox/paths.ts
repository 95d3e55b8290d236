/**
 * Path checks the sandbox's planning shares: a real path or null (missing, unreadable, or a
 * path Deno may not resolve, such as `/proc/self/root` under scoped permissions), whether a
 * folder holds a path, and the kernel's own file systems (`/proc`, `/sys`, `/dev`), whose paths
 * mean something else in every process and are never a folder of the user's.
 *
 * The sandbox's planning asks about a hundred such questions per run (every credential path it
 * hides, most of them missing), and they are asked synchronously: each asynchronous call is a
 * round trip through the runtime's thread pool, and the ten runs of a crew planning side by side
 * in the host queued behind one another's (a plan took 11 ms alone, up to 300 ms in a crew of 10).
 * Each answer is a few microseconds of local file system.
 */
import { normalize } from "../../sys/path.ts";

/** The real path of `path`, or null when it is not there or cannot be resolved. */
export function realOrNull(path: string): Promise<string | null> {
  return Promise.resolve(realOrNullNow(path));
}

/** `realOrNull`, answered at once. */
export function realOrNullNow(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory ||
      error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable ||
      error instanceof Deno.errors.FilesystemLoop
    ) {
      return null;
    }
    throw error;
  }
}

/** True when `folder` is `path` or one of its parents (pure). */
export function holds(folder: string, path: string): boolean {
  return folder === "/" || path === folder || path.startsWith(`${folder}/`);
}

const KERNEL = ["/proc", "/sys", "/dev"];

/** True for a path inside `/proc`, `/sys` or `/dev`, as written or once normalised (pure). */
export function isKernelPath(path: string): boolean {
  const clean = normalize(path);
  return KERNEL.some((k) => holds(k, clean));
}

/** The number of parts of an absolute path (`/` is 0): parents sort before what they hold. */
export function depth(path: string): number {
  return path === "/" ? 0 : path.split("/").length - 1;
}
