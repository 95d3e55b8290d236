/**
 * What a sandboxed worker may write, worked out from the run's mode and tree: the tree (not in
 * read runs) without its `.git`, the CLI's own state folders, the user's cache folder, the
 * config's `sandbox.writable`, and the attempt's private folder with its temp folder, which is
 * also the worker's `/tmp` (codex's own sandbox keeps a lock file there). Every `.git` the tree's
 * repository names (its own, the user's borrowed object store) stays read-only, even under a
 * writable folder. What the private `/tmp` hides is shown again, read-only, where the launch
 * names it (the whole folder right below `/tmp` that holds it): the tree, `HOME`, and absolute
 * paths in the environment (PATH) and the argv.
 */
import { dirname, isAbsolute, join } from "../../sys/path.ts";
import { lstatOrNull } from "../../sys/fs.ts";
import type { Mode } from "../../workers/types.ts";

/** The folders of one sandboxed launch. */
export interface SandboxPlan {
  /** The worker's directory. */
  cwd: string;
  /** Folders under `/tmp` shown read-only over the private `/tmp`, in order. */
  visible: string[];
  /** Bound read-write, in order. */
  writable: string[];
  /** Bound read-only after the writable ones (they win inside a writable folder). */
  readOnly: string[];
  /** The private temp folder (`TMPDIR`), inside `writable`. */
  tmp: string;
  /** The user's cache folder when it is writable (Node's compile cache goes there). */
  cache?: string;
}

/** What `planSandbox` reads. */
export interface PlanInput {
  mode: Mode;
  /** The worker's directory (the repository, the copy or the read view, or inside one). */
  cwd: string;
  /** The attempt's private folder. */
  privateDir: string;
  /** The CLI's own state and cache folders (the launch's `state`); made when missing. */
  state: readonly string[];
  /** More writable folders (`sandbox.writable`); a missing one is left out. */
  extra: readonly string[];
  /** The worker's environment (`HOME`, `XDG_CACHE_HOME`, paths it names). */
  env: Readonly<Record<string, string>>;
  /** The worker's argv (paths it names). */
  argv: readonly string[];
}

/** The folder the sandbox replaces with the private temp folder. */
export const HIDDEN_TMP = "/tmp";

const TMP_PATH = /(?:^|[\s'"=:,])(\/tmp\/[^\s'":,;)]+)/g;

/** Absolute paths under `/tmp` that a text names (pure). */
export function tmpPathsIn(text: string): string[] {
  return [...text.matchAll(TMP_PATH)].map((m) => m[1]!.replace(/\/+$/, ""));
}

/**
 * The folder right below `/tmp` that holds `path` (its nearest existing parent, real); null when
 * none. The whole top folder is shown, not just the path: a CLI installed under `/tmp` names its
 * `node_modules/.bin` on PATH, and the links there point into the packages beside it.
 */
async function topBelowTmp(path: string): Promise<string | null> {
  let at = path;
  while (at !== HIDDEN_TMP && at.startsWith(`${HIDDEN_TMP}/`)) {
    const real = await realOrNull(at);
    if (real !== null) {
      if (!real.startsWith(`${HIDDEN_TMP}/`)) return null;
      return join(HIDDEN_TMP, real.slice(HIDDEN_TMP.length + 1).split("/")[0]!);
    }
    at = dirname(at);
  }
  return null;
}

/** Expands a leading `~/` against `home` (pure). */
export function expandHome(path: string, home: string | undefined): string {
  if (home === undefined) return path;
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

async function realOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.realPath(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}

/** The nearest folder at or above `dir` holding a `.git`, and that `.git`; else `dir`. */
export async function treeRoot(dir: string): Promise<{ root: string; git: string | null }> {
  let at = dir;
  while (true) {
    const git = join(at, ".git");
    if (await lstatOrNull(git) !== null) return { root: at, git };
    const up = dirname(at);
    if (up === at) return { root: dir, git: null };
    at = up;
  }
}

/** The git dirs a repository's `.git` names: a worktree's `gitdir:`, and alternates' owners. */
async function namedGitDirs(git: string): Promise<string[]> {
  const out: string[] = [];
  const info = await lstatOrNull(git);
  let dir = git;
  if (info?.isFile) {
    const text = await Deno.readTextFile(git);
    const named = /^gitdir:\s*(.+)$/m.exec(text)?.[1]?.trim();
    if (named === undefined) return out;
    dir = isAbsolute(named) ? named : join(dirname(git), named);
    out.push(dir);
    const common = await readOrNull(join(dir, "commondir"));
    if (common !== null) {
      const c = common.trim();
      out.push(isAbsolute(c) ? c : join(dir, c));
    }
  }
  const alternates = await readOrNull(join(dir, "objects", "info", "alternates"));
  for (const line of (alternates ?? "").split("\n").map((l) => l.trim())) {
    if (line === "" || line.startsWith("#") || !isAbsolute(line)) continue;
    // `<git dir>/objects` of the user's repository, or Pitroom's own store.
    out.push(line.endsWith("/objects") ? dirname(line) : line);
  }
  return out;
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}

/** Works out the sandbox's folders, making the private temp folder and the CLI's state folders. */
export async function planSandbox(input: PlanInput): Promise<SandboxPlan> {
  const tmp = join(input.privateDir, "tmp");
  await Deno.mkdir(tmp, { recursive: true, mode: 0o700 });
  const cwd = await Deno.realPath(input.cwd);
  const { root, git } = await treeRoot(cwd);
  const writable: string[] = [];
  const readOnly: string[] = [];
  const add = (list: string[], path: string | null) => {
    if (path !== null && !list.includes(path)) list.push(path);
  };
  if (input.mode !== "read") add(writable, root);
  for (const path of input.state) {
    if (await lstatOrNull(path) === null) await Deno.mkdir(path, { recursive: true, mode: 0o700 });
    add(writable, await realOrNull(path));
  }
  const home = input.env.HOME;
  const cache = input.env.XDG_CACHE_HOME ?? (home === undefined ? undefined : join(home, ".cache"));
  const realCache = cache === undefined ? null : await realOrNull(cache);
  add(writable, realCache);
  for (const path of input.extra) add(writable, await realOrNull(expandHome(path, home)));
  add(writable, await Deno.realPath(input.privateDir));
  // The user's repository a copy or a view borrows from: its `.git` read-only, its work tree
  // shown (a `--link` folder of a copy points into it).
  const repos: string[] = [];
  if (git !== null) {
    add(readOnly, git);
    for (const named of await namedGitDirs(git)) {
      const real = await realOrNull(named);
      add(readOnly, real);
      if (real !== null && real.endsWith("/.git")) repos.push(dirname(real));
    }
  }
  const named = [
    root,
    ...repos,
    ...(home === undefined ? [] : [home]),
    ...[...Object.values(input.env), ...input.argv].flatMap(tmpPathsIn),
  ];
  const visible: string[] = [];
  for (const path of named) add(visible, await topBelowTmp(path));
  visible.sort((a, b) => a.length - b.length);
  return {
    cwd,
    visible,
    writable,
    readOnly,
    tmp: await Deno.realPath(tmp),
    ...(realCache === null ? {} : { cache: realCache }),
  };
}
