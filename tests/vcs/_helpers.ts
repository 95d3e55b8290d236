/**
 * Test helpers for vcs/: temp dirs that remove themselves, a real-git `Sys` with a private
 * HOME, a `git` shorthand, and fingerprints of a work tree and of a `.git` folder.
 */
import { join, relative } from "node:path";
import { realRunner } from "../../src/sys/real.ts";
import type { Env } from "../../src/sys/mod.ts";
import type { GitSys } from "../../src/vcs/mod.ts";

/** A temp dir removed with `await using`. */
export interface TempDir extends AsyncDisposable {
  path: string;
}

/** Creates a temp dir (real path) that removes itself. */
export async function tempDir(): Promise<TempDir> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "pitroom-vcs-" }));
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** The environment tests run git with: no system or user config but our own. */
export function testEnv(home: string): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.com",
    GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z",
  };
}

/** A `Sys` slice with the real runner and a fixed environment. */
export function testSys(home: string): GitSys {
  const vars = testEnv(home);
  const env: Env = { get: (name) => vars[name], toObject: () => ({ ...vars }) };
  return { runner: realRunner, env };
}

/** Runs git as a user would in `cwd`; throws on failure; returns stdout. */
export async function sh(home: string, cwd: string, ...args: string[]): Promise<string> {
  const out = await realRunner.run(["git", ...args], { cwd, env: testEnv(home) });
  if (out.code !== 0) throw new Error(`git ${args.join(" ")} failed: ${out.stderr}`);
  return out.stdout;
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function walk(
  root: string,
  dir: string,
  out: Map<string, string>,
  skip: (rel: string) => boolean,
): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const abs = join(dir, entry.name);
    const rel = relative(root, abs);
    if (skip(rel)) continue;
    const info = await Deno.lstat(abs);
    if (info.isSymlink) {
      out.set(rel, `link:${await Deno.readLink(abs)}`);
    } else if (info.isDirectory) {
      out.set(`${rel}/`, "dir");
      await walk(root, abs, out, skip);
    } else {
      const mode = ((info.mode ?? 0) & 0o777).toString(8);
      out.set(rel, `file:${mode}:${await sha256(await Deno.readFile(abs))}`);
    }
  }
}

/** Every file, symlink and directory of a work tree (not `.git`) with kind, mode and content hash. */
export async function treeFingerprint(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await walk(root, root, out, (rel) => rel === ".git");
  return out;
}

/** Every file and directory under a `.git` folder with a hash of its content. */
export async function gitDirFingerprint(gitDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await walk(gitDir, gitDir, out, () => false);
  return out;
}

/** Writes a file, creating parent directories. */
export async function put(root: string, path: string, content: string | Uint8Array) {
  const abs = join(root, path);
  await Deno.mkdir(join(abs, ".."), { recursive: true });
  if (typeof content === "string") await Deno.writeTextFile(abs, content);
  else await Deno.writeFile(abs, content);
}

/**
 * A repository whose `.gitignore` ignores `*.log` and `build/` (committed), with the ignored files
 * `a.log` and `build/x.txt` written: the ignored-files tests' world. `git` runs git in it.
 */
export async function ignoredFilesRepo(dir: string): Promise<{
  home: string;
  root: string;
  git: (...args: string[]) => Promise<string>;
}> {
  const home = join(dir, "home");
  const root = join(dir, "repo");
  for (const path of [home, root]) await Deno.mkdir(path);
  const git = (...args: string[]) => sh(home, root, ...args);
  await git("init", "-q", "-b", "main");
  await put(root, ".gitignore", "*.log\nbuild/\n");
  await git("add", "-A");
  await git("commit", "-q", "-m", "base");
  await put(root, "a.log", "one\n");
  await put(root, "build/x.txt", "two\n");
  return { home, root, git };
}

/** A repository with one commit of `files`, a private HOME and a state folder. */
export interface World extends AsyncDisposable {
  home: string;
  root: string;
  state: string;
  sys: ReturnType<typeof testSys>;
  git: (...args: string[]) => Promise<string>;
  put: (path: string, content: string | Uint8Array) => Promise<void>;
}

/** Makes a `World` (removed with `await using`). */
export async function world(files: Record<string, string> = { "a.txt": "one\n" }): Promise<World> {
  const tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  const state = join(tmp.path, "state");
  await Deno.mkdir(home);
  await Deno.mkdir(root);
  await Deno.mkdir(state);
  const git = (...args: string[]) => sh(home, root, ...args);
  await git("init", "-q", "-b", "main");
  for (const [path, content] of Object.entries(files)) await put(root, path, content);
  await git("add", "-A");
  await git("commit", "-q", "-m", "base", "--allow-empty");
  return {
    home,
    root,
    state,
    sys: testSys(home),
    git,
    put: (path, content) => put(root, path, content),
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}
