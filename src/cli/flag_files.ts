/**
 * Flags that name files and folders, checked before a run exists: `--task-file` must be a
 * readable file, each `--link` a folder inside the run's repository (exit 2 otherwise).
 */
import { UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import { join, resolve } from "../sys/path.ts";

/** The text of `--task-file`: a usage error when it is missing, a folder or unreadable. */
export async function readTaskFile(sys: Sys, taskFile: string): Promise<string> {
  const path = resolve(sys.cwd(), taskFile);
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) throw new UsageError(`Task file "${taskFile}" is a folder, not a file`);
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Task file "${taskFile}" does not exist`);
    }
    const detail = error instanceof Error ? error.message : String(error);
    throw new UsageError(`Task file "${taskFile}" cannot be read: ${detail}`);
  }
}

async function exists(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}

/** The work tree around `dir`: the nearest folder holding a `.git` (null outside one). */
async function treeRoot(dir: string): Promise<string | null> {
  for (let at = dir;; at = resolve(at, "..")) {
    if (await exists(join(at, ".git"))) return at;
    if (resolve(at, "..") === at) return null;
  }
}

/**
 * Checks `--link` values (repeated or comma-separated): each a relative folder inside the
 * repository of `dir` (default: the current folder), never `..`, `.` or `.git`, and present.
 */
export async function checkLinkFlags(
  sys: Sys,
  links: readonly string[] | undefined,
  dir: string | undefined,
): Promise<void> {
  const given = (links ?? []).flatMap((item) => item.split(",")).map((item) => item.trim());
  if (given.length === 0) return;
  const root = await treeRoot(resolve(sys.cwd(), dir ?? "."));
  for (const raw of given) {
    const link = raw.replace(/\/+$/, "");
    if (
      link === "" || link.startsWith("/") ||
      link.split("/").some((part) => part === ".." || part === "." || part === ".git")
    ) {
      throw new UsageError(`--link "${raw}" must be a folder inside the repository`, {
        hint: "name it from the repository's root, e.g. --link node_modules",
      });
    }
    if (root === null) continue; // the engine refuses an isolate run outside a repository
    const info = await exists(join(root, link));
    if (info === null || !info.isDirectory) {
      throw new UsageError(`--link "${raw}" is not a folder in ${root}`);
    }
  }
}
