/**
 * What comes back from a host: the files the worker changed in its copy there (their bytes, as on
 * disk, and mode) and the ones it removed. They are held until the host said it sent them all,
 * then written into the local copy, so a connection that drops on the way changes nothing here;
 * the engine then takes the copy's snapshot and patch as for any isolate run. A path is taken
 * only as a plain relative path inside the copy: never `..`, absolute, into `.git`, or through a
 * link (a host is not trusted to stay inside).
 */
import type { HeldSys } from "../../store/state.ts";
import { dirname, join } from "../../sys/path.ts";
import { lstatOrNull } from "../../sys/fs.ts";
import { representable } from "../../vcs/lossless.ts";
import { git, gitBytes } from "../../vcs/git.ts";
import type { RepoInfo } from "../../vcs/repo.ts";
import { type Snapshot, snapshot, type SnapshotOptions } from "../../vcs/snapshot.ts";

/** A file as it came back: its new bytes and mode, or null for one removed. */
export interface Returned {
  path: string;
  /** `100644`, `100755` or `120000` (a link, its target as the bytes); null: removed. */
  mode: "100644" | "100755" | "120000" | null;
  bytes?: Uint8Array;
}

/** The most bytes taken back from one run (more is refused, nothing written). */
export const MAX_RETURNED_BYTES = 1024 * 1024 * 1024;

/** Why `path` cannot be a file of the copy, or null when it can. */
export function badReturnedPath(path: string): string | null {
  if (path === "" || path.startsWith("/") || path.includes("\0") || path.includes("\\")) {
    return `"${path}" is not a relative path`;
  }
  const parts = path.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) {
    return `"${path}" is not a plain path inside the copy`;
  }
  if (parts.some((p) => p.toLowerCase() === ".git")) return `"${path}" is inside .git`;
  return null;
}

/** A name as the user reads it: each byte that is not UTF-8 as `\xNN`. */
function shown(name: string): string {
  return name.replace(/[\uDC80-\uDCFF]/g, (c) => `\\x${(c.charCodeAt(0) - 0xdc00).toString(16)}`);
}

/**
 * Checks a received file; returns it typed, or throws naming what is wrong. A name or a link
 * target that is not UTF-8 is refused (Deno cannot give such a name to the file system here, and
 * writing a changed name would mangle the worker's work).
 */
export function returnedOf(msg: Record<string, unknown>, bytes?: Uint8Array): Returned {
  const path = msg.p;
  if (typeof path !== "string") throw new Error("a returned file without a path");
  const bad = badReturnedPath(path);
  if (bad !== null) throw new Error(`the host returned a bad path: ${bad}`);
  if (!representable(path)) {
    throw new Error(
      `the worker made "${
        shown(path)
      }", a name that is not UTF-8, which cannot be written into the copy here`,
    );
  }
  if (msg.t === "gone") return { path, mode: null };
  const mode = msg.m;
  if (mode !== "100644" && mode !== "100755" && mode !== "120000") {
    throw new Error(`the host returned "${path}" with a bad mode`);
  }
  if (mode === "120000") {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw new Error(
        `the worker made the link "${path}" to a target that is not UTF-8, which cannot be written into the copy here`,
      );
    }
  }
  return { path, mode, bytes: bytes ?? new Uint8Array(0) };
}

/** Removes what is at `path` (a file, a link, or a folder and all it holds); nothing: fine. */
async function clear(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

/** Makes `path`'s parent folders inside `root`, clearing a file or link that stands in the way. */
async function parents(root: string, rel: string): Promise<void> {
  const parts = rel.split("/").slice(0, -1);
  let at = root;
  for (const part of parts) {
    at = join(at, part);
    const stat = await lstatOrNull(at);
    if (stat?.isDirectory) continue;
    // A link or a file where a folder must be: the host's tree has a folder there.
    if (stat !== null) await clear(at);
    await Deno.mkdir(at, { mode: 0o755 });
  }
}

/** Writes the returned files into the copy at `root`: removals first, then the new files. */
export async function writeReturned(root: string, files: readonly Returned[]): Promise<void> {
  for (const file of files) {
    if (file.mode !== null) continue;
    const at = join(root, file.path);
    // Only a path whose folders are real folders of the copy: a link never leads the removal out.
    if (await throughLink(root, file.path)) continue;
    const stat = await lstatOrNull(at);
    if (stat !== null && !stat.isDirectory) await clear(at);
  }
  for (const file of files) {
    if (file.mode === null) continue;
    await parents(root, file.path);
    const at = join(root, file.path);
    const stat = await lstatOrNull(at);
    if (stat !== null) await clear(at);
    if (file.mode === "120000") {
      await Deno.symlink(new TextDecoder().decode(file.bytes), at);
      continue;
    }
    const temp = join(dirname(at), `.pitroom-back-${crypto.randomUUID()}`);
    await Deno.writeFile(temp, file.bytes!, { mode: file.mode === "100755" ? 0o755 : 0o644 });
    await Deno.chmod(temp, file.mode === "100755" ? 0o755 : 0o644);
    await Deno.rename(temp, at);
  }
}

/** True when a folder on the way to `rel` inside `root` is a link. */
async function throughLink(root: string, rel: string): Promise<boolean> {
  let at = root;
  for (const part of rel.split("/").slice(0, -1)) {
    at = join(at, part);
    const stat = await lstatOrNull(at);
    if (stat === null) return false;
    if (stat.isSymlink || !stat.isDirectory) return true;
  }
  return false;
}

/** A path the worker changed in a copy, with its new mode (null: removed). */
export interface Changed {
  path: string;
  mode: string | null;
  /** The snapshot's blob: the file's bytes as on disk, or a link's target. */
  id: string;
}

/** One changed path of `git diff-tree -r -z`: its new mode (null: removed). */
function parseDiffTree(out: string): Changed[] {
  const parts = out.split("\0");
  const changes: Changed[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]!.replace(/^:/, "").split(" ");
    const status = meta[4] ?? "";
    changes.push({
      path: parts[i + 1]!,
      mode: status.startsWith("D") ? null : meta[1]!,
      id: meta[3]!,
    });
  }
  return changes;
}

/**
 * The paths the worker changed in `copy` since `options.base` (a snapshot of the copy after the
 * worker, in `options.objectsDir`, compared with the base's tree).
 */
export async function changedPaths(
  sys: HeldSys,
  copy: RepoInfo,
  options: SnapshotOptions & { base: Snapshot },
): Promise<Changed[]> {
  const after = await snapshot(sys, copy, options);
  const diff = await git(
    sys,
    ["diff-tree", "-r", "-z", "--no-renames", options.base.tree, after.tree],
    { cwd: copy.root, env: snapshotEnv(copy, options.objectsDir) },
  );
  return parseDiffTree(diff.stdout);
}

function snapshotEnv(copy: RepoInfo, objectsDir: string): Record<string, string> {
  return {
    GIT_DIR: copy.gitDir,
    GIT_OBJECT_DIRECTORY: objectsDir,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: copy.objectsDir,
  };
}

/**
 * A changed path of `copy` as it goes back: the snapshot's blob read by its id (the file's bytes as
 * on disk, a link's target), so a name that is not UTF-8, which Deno cannot open, goes back as it
 * is and is judged by the side that writes it.
 */
export async function readReturned(
  sys: HeldSys,
  copy: RepoInfo,
  objectsDir: string,
  change: Changed,
): Promise<Returned> {
  if (change.mode === null) return { path: change.path, mode: null };
  const bytes = await gitBytes(sys, ["cat-file", "blob", change.id], {
    cwd: copy.root,
    env: snapshotEnv(copy, objectsDir),
  });
  const mode = change.mode === "120000" || change.mode === "100755" ? change.mode : "100644";
  return { path: change.path, mode, bytes };
}
