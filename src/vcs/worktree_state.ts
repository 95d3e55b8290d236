/**
 * What given paths of the work tree hold right now, in git's terms (mode and the blob id of the
 * bytes on disk, as snapshots record them: no filter or line-ending rule), and the pure check of those states against the
 * entries a snapshot expects. Revert uses it to refuse when a file changed since the worker.
 */
import { join } from "../sys/path.ts";
import { git, gitBytes, type GitSys, nulList } from "./git.ts";
import type { RepoInfo } from "./repo.ts";
import { ensureStore, type StoreOptions, trackingEnv } from "./store.ts";
import { lstatOrNull } from "../sys/fs.ts";
import { hashRaw, rawCommonDir, rawEnv } from "./raw.ts";
import { representable } from "./lossless.ts";
import { withScratch } from "./store.ts";

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
  const named = options.paths.filter(representable);
  const bytesOnly = options.paths.filter((path) => !representable(path));
  if (bytesOnly.length > 0) {
    for (const [path, state] of await readByGit(sys, repo, { ...options, paths: bytesOnly })) {
      states.set(path, state);
    }
  }
  for (const path of named) {
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

/**
 * Writes what each path holds now into Pitroom's store (file bytes, a symlink's target) and
 * returns its entry; null for no file (or a folder, or something else).
 */
export async function keepFiles(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { paths: readonly string[] },
): Promise<Map<string, Entry | null>> {
  await ensureStore(options);
  const states = await readPathStates(sys, repo, { ...options, paths: [...options.paths] });
  const out = new Map<string, Entry | null>();
  const files: string[] = [];
  for (const [path, state] of states) {
    if (state.kind !== "entry") out.set(path, null);
    else if (state.entry.mode === "120000" || !representable(path)) {
      // A symlink's target, or a name only git can read: kept through git's own index.
      out.set(path, state.entry);
    } else files.push(path);
  }
  const written = await hashRaw(sys, repo, { ...options, paths: files, write: true });
  for (const path of files) {
    const state = states.get(path) as { kind: "entry"; entry: Entry };
    out.set(path, { mode: state.entry.mode, blob: written.get(path) ?? state.entry.blob });
  }
  const links = [...out].filter(([path, e]) => e?.mode === "120000" && representable(path));
  for (const [path] of links) {
    const target = new TextEncoder().encode(await Deno.readLink(join(repo.root, path)));
    const hashed = await git(sys, ["hash-object", "-w", "--stdin"], {
      cwd: repo.root,
      env: trackingEnv(repo, options),
      stdin: target,
    });
    out.set(path, { mode: "120000", blob: hashed.stdout.trim() });
  }
  return out;
}

/** Writes `bytes` as a blob into Pitroom's store; its id. */
export async function storeBlob(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { bytes: Uint8Array },
): Promise<string> {
  const out = await git(sys, ["hash-object", "-w", "--no-filters", "--stdin"], {
    cwd: repo.root,
    env: trackingEnv(repo, options),
    stdin: options.bytes,
  });
  return out.stdout.trim();
}

/** The bytes of a blob (in Pitroom's store or the user's). */
export async function readBlob(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { blob: string },
): Promise<Uint8Array> {
  return await gitBytes(sys, ["cat-file", "blob", options.blob], {
    cwd: repo.root,
    env: trackingEnv(repo, options),
  });
}

/**
 * What paths the file system cannot be given by name (not UTF-8, see lossless.ts) hold, as git
 * sees them: each is added to a throwaway index (missing ones are skipped), byte for byte.
 */
async function readByGit(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { paths: string[] },
): Promise<Map<string, PathState>> {
  return await withScratch(options, async (dir) => {
    const env = {
      ...rawEnv(repo, options, await rawCommonDir(repo, dir)),
      GIT_INDEX_FILE: join(dir, "index"),
    };
    const call = { cwd: repo.root, env };
    const states = new Map<string, PathState>();
    for (const path of options.paths) {
      // One at a time: a directory at a path fails that path alone.
      const out = await git(sys, ["update-index", "-z", "--add", "--remove", "--stdin"], {
        ...call,
        stdin: nulList([path]),
        okCodes: [0, 128],
      });
      states.set(path, out.code === 0 ? { kind: "absent" } : { kind: "dir" });
    }
    const listed = await git(sys, ["ls-files", "-s", "-z"], call);
    for (const record of listed.stdout.split("\0")) {
      const match = /^(\d{6}) ([0-9a-f]+) \d\t(.*)$/s.exec(record);
      if (match === null) continue;
      states.set(match[3]!, { kind: "entry", entry: { mode: match[1]!, blob: match[2]! } });
    }
    return states;
  });
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
