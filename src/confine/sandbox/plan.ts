/**
 * What a sandboxed worker may write and may not see, worked out from the run's mode and tree:
 * - writable: the tree (not in read runs) without its `.git`, the CLI's own state folders, the
 *   user's cache folder, the config's `sandbox.writable`, and the attempt's private folder with
 *   its temp folder, which is also the worker's `/tmp` (codex's own sandbox keeps a lock file
 *   there). A state or cache folder that is `/`, holds the home folder, or lies in `/proc`,
 *   `/sys` or `/dev` is left out;
 * - read-only over those: every `.git` the tree's repository names (its own, the user's borrowed
 *   object store, Pitroom's snapshot objects), even under a writable folder;
 * - hidden: the paths the caller names (Pitroom's state dir, credentials, secret-looking files of
 *   the tree): a folder is replaced by an empty one, a file by an empty read-only file; what the
 *   launch needs inside a hidden folder (its tree, private folder, state folders, `.git`s and the
 *   caller's `show` paths, the guard) is shown again, because mounts are applied parents first;
 * - visible again: what the private `/tmp` hides, where the launch names it (the whole folder
 *   right below `/tmp` that holds it): the tree, `HOME`, absolute paths in the environment (PATH)
 *   and the argv, and the real folders of PATH entries, of the program itself and of the
 *   interpreter its `#!` line names, when a link (or a link on the way) leads there from outside
 *   `/tmp`.
 */
import { dirname, isAbsolute, join } from "../../sys/path.ts";
import { lstatOrNullSync, statOrNullSync } from "../../sys/fs.ts";
import { MODES } from "../../workers/modes.ts";
import type { Mode } from "../../workers/types.ts";
import { depth, holds, isKernelPath, realOrNull, realOrNullNow } from "./paths.ts";
import { shownInTmp } from "./tmp.ts";

/** The folders of one sandboxed launch. */
export interface SandboxPlan {
  /** The worker's directory. */
  cwd: string;
  /** Folders under `/tmp` shown read-only over the private `/tmp`. */
  visible: string[];
  /** Bound read-write. */
  writable: string[];
  /** Bound read-only (they win inside a writable folder). */
  readOnly: string[];
  /** Folders replaced by an empty one. */
  hidden: string[];
  /** Files replaced by `empty`, read-only. */
  masked: string[];
  /** An empty file (read-only in the sandbox) laid over each masked file. */
  empty: string;
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
  /**
   * Absolute paths to hide, files or folders; a missing one is left out, and so is one that is
   * `/` or holds the home folder.
   * @default none
   */
  hide?: readonly string[];
  /**
   * Absolute paths shown after all: a hidden path inside one is not hidden, and one inside a
   * hidden folder is shown again, read-only.
   * @default none
   */
  show?: readonly string[];
}

/** A mount of the plan, in the order it is applied. */
export type PlanMount =
  | { kind: "visible" | "rw" | "ro" | "hide"; path: string }
  | { kind: "mask"; path: string; source: string };

/** Expands a leading `~/` against `home` (pure). */
export function expandHome(path: string, home: string | undefined): string {
  if (home === undefined) return path;
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/** The nearest folder at or above `dir` holding a `.git`, and that `.git`; else `dir`. */
export function treeRoot(dir: string): Promise<{ root: string; git: string | null }> {
  return Promise.resolve(treeRootNow(dir));
}

/** `treeRoot`, answered at once (see paths.ts: the planning's questions are synchronous). */
function treeRootNow(dir: string): { root: string; git: string | null } {
  let at = dir;
  while (true) {
    const git = join(at, ".git");
    if (lstatOrNullSync(git) !== null) return { root: at, git };
    const up = dirname(at);
    if (up === at) return { root: dir, git: null };
    at = up;
  }
}

/** The git dirs a repository's `.git` names: a worktree's `gitdir:`, and alternates' owners. */
function namedGitDirs(git: string): string[] {
  const out: string[] = [];
  const info = lstatOrNullSync(git);
  let dir = git;
  if (info?.isFile) {
    const text = Deno.readTextFileSync(git);
    const named = /^gitdir:\s*(.+)$/m.exec(text)?.[1]?.trim();
    if (named === undefined) return out;
    dir = isAbsolute(named) ? named : join(dirname(git), named);
    out.push(dir);
    const common = readOrNull(join(dir, "commondir"));
    if (common !== null) {
      const c = common.trim();
      out.push(isAbsolute(c) ? c : join(dir, c));
    }
  }
  const alternates = readOrNull(join(dir, "objects", "info", "alternates"));
  for (const line of (alternates ?? "").split("\n").map((l) => l.trim())) {
    if (line === "" || line.startsWith("#") || !isAbsolute(line)) continue;
    // `<git dir>/objects` of the user's repository: its whole `.git`; Pitroom's own store
    // (`<state>/repos/<key>/objects`): the objects alone, nothing else of the state dir.
    out.push(line.endsWith("/.git/objects") ? dirname(line) : line);
  }
  return out;
}

function readOrNull(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}

/** A folder a worker may write besides its tree: never `/`, a holder of home, or a kernel path. */
function safeWritable(real: string, home: string | null): boolean {
  if (real === "/" || isKernelPath(real)) return false;
  return home === null || !holds(real, home);
}

/** What to hide, split into folders and files, after the `show` paths took theirs out. */
function hiddenPaths(
  hide: readonly string[],
  show: readonly string[],
  home: string | null,
): { hidden: string[]; masked: string[] } {
  const hidden: string[] = [];
  const masked: string[] = [];
  // Most listed credentials do not exist: a missing one is one call.
  const found = hide.map((path) => {
    if (!isAbsolute(path) || isKernelPath(path)) return null;
    const real = realOrNullNow(path);
    if (real === null || real === "/" || isKernelPath(real)) return null;
    if (home !== null && holds(real, home)) return null;
    if (show.some((s) => holds(s, real))) return null;
    const info = statOrNullSync(real);
    return info === null ? null : { real, dir: info.isDirectory };
  });
  for (const f of found) {
    if (f === null) continue;
    const list = f.dir ? hidden : masked;
    if (!list.includes(f.real)) list.push(f.real);
  }
  return { hidden, masked };
}

/** Works out the sandbox's folders, making the private temp folder and the CLI's state folders. */
export async function planSandbox(input: PlanInput): Promise<SandboxPlan> {
  const tmp = join(input.privateDir, "tmp");
  // Its questions and folders synchronously, as paths.ts says why.
  Deno.mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const cwd = Deno.realPathSync(input.cwd);
  const { root, git } = await treeRoot(cwd);
  const writable: string[] = [];
  const readOnly: string[] = [];
  const add = (list: string[], path: string | null) => {
    if (path !== null && !list.includes(path)) list.push(path);
  };
  const home = input.env.HOME;
  const realHome = home === undefined || !isAbsolute(home) ? null : await realOrNull(home);
  const addSafe = (path: string | null) => {
    if (path !== null && safeWritable(path, realHome)) add(writable, path);
  };
  if (MODES[input.mode].edits) add(writable, root);
  for (const path of input.state) {
    if (isKernelPath(path)) continue;
    if (lstatOrNullSync(path) === null) Deno.mkdirSync(path, { recursive: true, mode: 0o700 });
    addSafe(await realOrNull(path));
  }
  const cache = input.env.XDG_CACHE_HOME ?? (home === undefined ? undefined : join(home, ".cache"));
  const realCache = cache === undefined || isKernelPath(cache) ? null : await realOrNull(cache);
  addSafe(realCache);
  for (const path of input.extra) addSafe(await realOrNull(expandHome(path, home)));
  const privateDir = Deno.realPathSync(input.privateDir);
  add(writable, privateDir);
  // The user's repository a copy or a view borrows from: its `.git` read-only, its work tree
  // shown (a `--link` folder of a copy points into it).
  const repos: string[] = [];
  if (git !== null) {
    add(readOnly, git);
    for (const named of namedGitDirs(git)) {
      const real = await realOrNull(named);
      add(readOnly, real);
      if (real !== null && real.endsWith("/.git")) repos.push(dirname(real));
    }
  }
  const show: string[] = [];
  for (const path of input.show ?? []) add(show, await realOrNull(path));
  const { hidden, masked } = hiddenPaths(input.hide ?? [], show, realHome);
  // A read run's tree inside a hidden folder (a read view in the state dir) is shown again.
  if (!MODES[input.mode].edits && hidden.some((h) => holds(h, root))) add(readOnly, root);
  for (const path of show) if (hidden.some((h) => holds(h, path))) add(readOnly, path);
  const empty = join(privateDir, ".masks", "empty");
  if (masked.length > 0) {
    await Deno.mkdir(dirname(empty), { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(empty, "", { mode: 0o400 });
    add(readOnly, dirname(empty));
  }
  const visible = await shownInTmp([root, ...repos, ...(home === undefined ? [] : [home])], {
    env: input.env,
    argv: input.argv,
  });
  return {
    cwd,
    visible,
    // `.git` stays read-only even when a writable folder is named inside it.
    writable: writable.filter((w) => !readOnly.some((r) => holds(r, w) && r !== w)),
    readOnly,
    hidden,
    masked,
    empty,
    tmp: Deno.realPathSync(tmp),
    ...(realCache === null || !writable.includes(realCache) ? {} : { cache: realCache }),
  };
}

/**
 * The hidden folder or file that holds `path` (a real path) in the plan's sandbox, or null when
 * it is visible there: not under a hidden one, or shown again by a deeper mount (pure).
 */
export function hiddenHolder(plan: SandboxPlan, path: string): string | null {
  const holder = [...plan.hidden, ...plan.masked].filter((h) => holds(h, path))
    .sort((a, b) => depth(b) - depth(a))[0];
  if (holder === undefined) return null;
  const shown = [...plan.writable, ...plan.readOnly].some((s) =>
    holds(s, path) && depth(s) > depth(holder)
  );
  return shown ? null : holder;
}

const RANK: Record<PlanMount["kind"], number> = { visible: 0, rw: 1, ro: 2, hide: 3, mask: 3 };

/**
 * The plan's mounts in the order they are applied (pure): parents before what they hold, so a
 * folder shown inside a hidden one (or a read-only `.git` inside a writable tree) is laid over
 * it; at the same path a writable folder wins over one shown again under `/tmp`, a read-only
 * bind over a writable one, and hiding over all. With
 * `visible: false`, the folders shown again over the private `/tmp` are left out (sandbox-exec
 * has no private `/tmp`).
 */
export function planMounts(
  plan: SandboxPlan,
  options: { visible?: boolean } = {},
): PlanMount[] {
  const mounts: PlanMount[] = [
    ...(options.visible === false ? [] : plan.visible).map((path) => ({
      kind: "visible" as const,
      path,
    })),
    ...plan.writable.map((path) => ({ kind: "rw" as const, path })),
    ...plan.readOnly.map((path) => ({ kind: "ro" as const, path })),
    ...plan.hidden.map((path) => ({ kind: "hide" as const, path })),
    ...plan.masked.map((path) => ({ kind: "mask" as const, path, source: plan.empty })),
  ];
  return mounts
    .map((m, i) => ({ m, i }))
    .sort((a, b) =>
      depth(a.m.path) - depth(b.m.path) ||
      (a.m.path === b.m.path ? RANK[a.m.kind] - RANK[b.m.kind] : 0) || a.i - b.i
    )
    .map(({ m }) => m);
}
