/**
 * Where a task comes from before a run exists: the arguments, stdin (`run -`) or `--task-file`
 * (a file, or a stream: a FIFO, `/dev/stdin`), each read to at most `TASK_LIMIT_BYTES` (reading
 * stops there: stdin or a device may never end); and `--link`, each a folder inside the run's
 * repository. Anything else is exit 2, one line.
 */
import { TASK_LIMIT_BYTES } from "../engine/present.ts";
import { UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import { join, resolve } from "../sys/path.ts";
import { kindOf, readCapped, sizeText } from "../sys/read.ts";

const TOO_LONG_HINT = "write the long part into a file in the repository and name it in the task";

function tooLong(what: string): UsageError {
  return new UsageError(
    `${what} is longer than ${
      sizeText(TASK_LIMIT_BYTES)
    }, the most a task may hold: stopped reading there`,
    { hint: TOO_LONG_HINT },
  );
}

/** The names of stdin a task file may be given as (`-` too). */
const STDIN_PATHS = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

/** The task on stdin (`run -`), read to at most `TASK_LIMIT_BYTES`. */
export async function readTaskStdin(stdin: ReadableStream<Uint8Array>): Promise<string> {
  const read = await readCapped(stdin, TASK_LIMIT_BYTES);
  if (read.over) throw tooLong("The task on stdin");
  return read.text;
}

/**
 * The text of `--task-file`: a file, or a stream (a FIFO, a character device such as
 * `/dev/stdin`) read to at most `TASK_LIMIT_BYTES`; a usage error when it is missing, a folder,
 * another kind of thing, too long or unreadable.
 */
export async function readTaskFile(sys: Sys, taskFile: string): Promise<string> {
  const path = resolve(sys.cwd(), taskFile);
  // Stdin by its names (Pitroom may not open /proc's links to it): read like `run -`.
  if (taskFile === "-" || STDIN_PATHS.has(path)) return await readTaskStdin(Deno.stdin.readable);
  const name = `Task file "${taskFile}"`;
  try {
    const info = await Deno.stat(path);
    if (info.isFile && info.size > TASK_LIMIT_BYTES) {
      throw new UsageError(
        `${name} holds ${info.size} bytes, more than a task may (${sizeText(TASK_LIMIT_BYTES)})`,
        { hint: TOO_LONG_HINT },
      );
    }
    if (!info.isFile && !info.isFifo && !info.isCharDevice) {
      throw new UsageError(`${name} is ${kindOf(info)}, not a file`);
    }
    const file = await Deno.open(path);
    const read = await readCapped(file.readable, TASK_LIMIT_BYTES);
    if (read.over) throw tooLong(info.isFile ? name : `${name} (${kindOf(info)})`);
    return read.text;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof Deno.errors.NotFound) throw new UsageError(`${name} does not exist`);
    if (error instanceof Deno.errors.NotCapable) {
      throw new UsageError(
        `${name} cannot be read: Pitroom opens no special files of /proc or /dev`,
      );
    }
    const detail = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${name} cannot be read: ${detail}`);
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
