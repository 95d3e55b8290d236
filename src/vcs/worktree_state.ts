/**
 * What given paths of the work tree hold right now, in git's terms (mode and the blob id of the
 * bytes on disk, as snapshots record them: no filter or line-ending rule), and the pure check of those states against the
 * entries a snapshot expects. Revert uses it to refuse when a file changed since the worker.
 */
import { join } from "../sys/path.ts";
import { git, type GitSys } from "./git.ts";
import type { RepoInfo } from "./repo.ts";
import { type StoreOptions, trackingEnv } from "./store.ts";
import { lstatOrNull } from "../sys/fs.ts";
import { hashRaw } from "./raw.ts";

/** A file as a tree records it. */
export interface Entry {
  mode: string;
  blob: string;
}

/** The entry of a mode and blob from a diff line; null for "no file" (either side absent). */
export function entryOf(mode: string | null, blob: string | null): Entry | null {
  return mode === null || blob === null ? null : { mode, blob };
}

/** What a path holds now: nothing, a file or symlink (as an entry), a directory, or other. */
export type PathState =
  | { kind: "absent" }
  | { kind: "entry"; entry: Entry }
  | { kind: "dir" }
  | { kind: "other" };

/** The git mode of a gitlink (submodule) entry; vcs/ leaves those alone. */
export const GITLINK = "160000";

/** Whether the repository tracks the executable bit (`core.fileMode`, true unless set false). */
export async function tracksFileMode(
  sys: GitSys,
  repo: RepoInfo,
  store: StoreOptions,
): Promise<boolean> {
  const out = await git(sys, ["config", "--type=bool", "--get", "core.fileMode"], {
    cwd: repo.root,
    env: trackingEnv(repo, store),
    okCodes: [0, 1],
  });
  return out.code !== 0 || out.stdout.trim() !== "false";
}

/** Reads what each path (relative to the root) holds now. */
export async function readPathStates(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { paths: string[] },
): Promise<Map<string, PathState>> {
  const states = new Map<string, PathState>();
  const files: { path: string; mode: string }[] = [];
  for (const path of options.paths) {
    const info = await lstatOrNull(join(repo.root, path));
    if (info === null) {
      states.set(path, { kind: "absent" });
    } else if (info.isSymlink) {
      const target = new TextEncoder().encode(await Deno.readLink(join(repo.root, path)));
      const out = await git(sys, ["hash-object", "--stdin"], {
        cwd: repo.root,
        env: trackingEnv(repo, options),
        stdin: target,
      });
      states.set(path, { kind: "entry", entry: { mode: "120000", blob: out.stdout.trim() } });
    } else if (info.isFile) {
      files.push({ path, mode: ((info.mode ?? 0) & 0o100) !== 0 ? "100755" : "100644" });
    } else {
      states.set(path, { kind: info.isDirectory ? "dir" : "other" });
    }
  }
  const hashes = await hashRaw(sys, repo, {
    ...options,
    paths: files.map((file) => file.path),
    write: false,
  });
  for (const { path, mode } of files) {
    states.set(path, { kind: "entry", entry: { mode, blob: hashes.get(path) ?? "" } });
  }
  return states;
}

function sameMode(expected: string, actual: string, fileMode: boolean): boolean {
  if (expected === actual) return true;
  const regular = (mode: string) => mode === "100644" || mode === "100755";
  return !fileMode && regular(expected) && regular(actual);
}

/**
 * The paths whose current state differs from what is expected (an entry, or null for "no file
 * here": a directory is fine, a snapshot holds no directories). Gitlinks are not checked.
 * `fileMode: false` ignores the executable bit.
 */
export function changedSince(
  expected: Map<string, Entry | null>,
  now: Map<string, PathState>,
  options: { fileMode: boolean },
): string[] {
  const changed: string[] = [];
  for (const [path, entry] of expected) {
    if (entry?.mode === GITLINK) continue;
    const state = now.get(path) ?? { kind: "absent" };
    const same = entry === null
      ? state.kind === "absent" || state.kind === "dir"
      : state.kind === "entry" &&
        state.entry.blob === entry.blob && sameMode(entry.mode, state.entry.mode, options.fileMode);
    if (!same) changed.push(path);
  }
  return changed;
}
