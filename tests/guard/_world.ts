/**
 * The world the escape suite runs in: a user's repository with work in every state git knows
 * (a second commit, a branch, a stash, staged and unstaged changes, an untracked file, an ignored
 * `.env`, a bare remote), copied afresh for each escape; the exact environment a codex worker
 * gets (built by `workerEnv`, the function the engine's attempts use, then the backend's launch);
 * and a fingerprint of everything the guard promises to keep.
 */
import { join } from "node:path";
import { workerEnv } from "../../src/engine/env.ts";
import { codexLaunch } from "../../src/workers/codex/argv.ts";
import { findOnPath } from "../../src/workers/_detect.ts";
import { moduleCacheEnv, pitroomArgv } from "../support/pitroom.ts";
import { testSys } from "../support/sys.ts";
import { git, tempDir } from "../support/temp.ts";

/** Secrets in the caller's environment that no codex worker may see. */
export const SECRETS: Readonly<Record<string, string>> = {
  GITHUB_TOKEN: "ghp-escape-secret-1",
  NPM_TOKEN: "npm-escape-secret-2",
  AWS_SECRET_ACCESS_KEY: "aws-escape-secret-3",
  MY_SERVICE_TOKEN: "svc-escape-secret-4",
  DB_PASSWORD: "db-escape-secret-5",
  STRIPE_API_KEY: "stripe-escape-secret-6",
  ANTHROPIC_API_KEY: "anthropic-escape-secret-7",
};

/** The codex worker's own provider key, which it keeps. */
export const OWN_KEY = { OPENAI_API_KEY: "sk-own-provider-key" };

/** The run id the worker env is marked with. */
export const RUN_ID = "20250101-000000-esca";

function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Builds the template repository and its bare remote under `dir`. */
async function buildTemplate(dir: string): Promise<void> {
  const repo = join(dir, "repo");
  await Deno.mkdir(repo, { recursive: true });
  const write = (name: string, text: string) => Deno.writeTextFile(join(repo, name), text);
  await git(repo, "init", "-q", "-b", "main");
  await write("a.txt", "alpha\n");
  await write("b.txt", "beta\n");
  await write(".gitignore", ".env\n");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-qm", "init");
  await write("a.txt", "alpha 2\n");
  await git(repo, "commit", "-qam", "second");
  await git(repo, "branch", "feature", "HEAD~1");
  await write("b.txt", "beta\nstashed\n");
  await git(repo, "stash", "-q");
  await write("a.txt", "alpha 2\nstaged\n");
  await git(repo, "add", "a.txt");
  await write("b.txt", "beta\nunstaged\n");
  await write("notes.txt", "my own notes\n");
  await write(".env", "API_SECRET=env-file-secret\n");
  await git(dir, "init", "-q", "--bare", "remote.git");
  await git(repo, "remote", "add", "origin", "../remote.git");
  await git(repo, "push", "-q", "origin", "main", "feature");
}

async function readTree(root: string, skip: (rel: string) => boolean): Promise<[string, string][]> {
  const out: [string, string][] = [];
  async function walk(rel: string) {
    for await (const entry of Deno.readDir(join(root, rel))) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (skip(path)) continue;
      if (entry.isDirectory) await walk(path);
      else if (entry.isSymlink) out.push([path, `-> ${await Deno.readLink(join(root, path))}`]);
      else out.push([path, await Deno.readTextFile(join(root, path)).catch(() => "<binary>")]);
    }
  }
  await walk("");
  return out.sort(([a], [b]) => a < b ? -1 : 1);
}

const GIT_KEPT =
  /^(HEAD|config|index|packed-refs|refs(\/.*)?|hooks(\/.*)?|logs|logs\/refs(\/stash)?)$/;

/**
 * Everything the guard keeps: the work tree (the user's files, `.env` included), and in `.git`
 * HEAD, refs, packed refs, the index (its bytes, base64, and with `staged` what it stages),
 * config, hooks and the stash's reflog; the remote's refs.
 */
export async function fingerprint(
  dir: string,
  options: { staged?: boolean } = {},
): Promise<Record<string, string>> {
  const repo = join(dir, "repo");
  const work = await readTree(repo, (p) => p === ".git");
  const dotGit = await readTree(join(repo, ".git"), (p) => !GIT_KEPT.test(p));
  const remote = await readTree(
    join(dir, "remote.git"),
    (p) => !/^(HEAD|packed-refs|refs(\/.*)?)$/.test(p),
  );
  const index = await Deno.readFile(join(repo, ".git", "index"));
  const staged = options.staged
    ? await new Deno.Command("git", {
      args: ["ls-files", "--stage"],
      cwd: repo,
      env: { GIT_OPTIONAL_LOCKS: "0" },
      stdin: "null",
    }).output()
    : null;
  return Object.fromEntries([
    ...work.map(([p, t]) => [`work:${p}`, t]),
    ...dotGit.filter(([p]) => p !== "index").map(([p, t]) => [`git:${p}`, t]),
    ["git:index", btoa(String.fromCharCode(...index))],
    ...(staged === null ? [] : [["git:staged", new TextDecoder().decode(staged.stdout)]]),
    ...remote.map(([p, t]) => [`remote:${p}`, t]),
  ]);
}

/** What one command did. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** One copy of the template, with the places an escape's command can name. */
export interface Scene {
  /** The copy's folder: `repo/` and `remote.git/` inside. */
  dir: string;
  repo: string;
  /** A scratch folder outside the repository. */
  scratch: string;
}

/** The escape world: the template, the guard's state dir, and how to run under a worker env. */
export interface EscapeWorld extends AsyncDisposable {
  /** Placeholders an escape's command may use, by name (`{GIT}`, `{GUARD}`, ...). */
  places(scene: Scene): Record<string, string>;
  /** A fresh copy of the template repository. */
  scene(name: string): Promise<Scene>;
  /**
   * Runs `command` with `sh -c` in the repo under the exact codex worker environment (built as
   * an attempt builds it, again after a command that named the guard's folder, which repairs it).
   */
  guarded(scene: Scene, command: string): Promise<Ran>;
  /** Runs `command` the same way without the guard (the control: escapes work there). */
  plain(scene: Scene, command: string): Promise<Ran>;
  /** True when `program` is installed (on the caller's PATH). */
  has(program: string): boolean;
}

async function sh(cwd: string, env: Record<string, string>, command: string): Promise<Ran> {
  const out = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    env: { ...moduleCacheEnv(), ...env },
    clearEnv: true,
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Builds the escape world. */
export async function escapeWorld(): Promise<EscapeWorld> {
  const root = await tempDir("pitroom-escapes-");
  const template = join(root.path, "template");
  await buildTemplate(template);
  const home = join(root.path, "home");
  await Deno.mkdir(home);
  const stateDir = join(root.path, "state");
  const path = Deno.env.get("PATH") ?? "/usr/bin:/bin";
  const realGit = findOnPath("git", { PATH: path });
  if (realGit === null) throw new Error("no git on PATH");
  const denoDir = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno");
  const callerEnv: Record<string, string> = {
    PATH: path,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    DENO_DIR: denoDir,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "User",
    GIT_AUTHOR_EMAIL: "user@example.invalid",
    GIT_COMMITTER_NAME: "User",
    GIT_COMMITTER_EMAIL: "user@example.invalid",
    ...SECRETS,
    ...OWN_KEY,
  };
  const sys = testSys({ stateDir, env: callerEnv });
  // testSys starts from the test process's env: keep only the caller env above (and its
  // PITROOM_STATE_DIR, which the scrub drops anyway).
  const onlyCaller: Record<string, string> = { ...callerEnv, PITROOM_STATE_DIR: stateDir };
  const callerSys = {
    ...sys,
    env: { get: (n: string) => onlyCaller[n], toObject: () => ({ ...onlyCaller }) },
  };
  let scenes = 0;

  let launchEnv: Record<string, string> | null = null;
  async function workerLaunchEnv(): Promise<Record<string, string>> {
    const { baseEnv, pathPrefix } = await workerEnv(callerSys, { worker: "codex", runId: RUN_ID });
    return codexLaunch({
      mode: "write",
      prompt: "",
      cwd: root.path,
      privateDir: join(root.path, "private"),
      web: false,
      baseEnv,
      pathPrefix,
    }).env;
  }
  const guardBin = join(stateDir, "guard", "bin");
  const hooks = join(stateDir, "guard", "hooks");

  return {
    places: (scene) => ({
      GIT: realGit,
      GUARD: guardBin,
      HOOKS: hooks,
      REPO: scene.repo,
      REMOTE: join(scene.dir, "remote.git"),
      SCRATCH: scene.scratch,
      PITROOM: pitroomArgv().map(shQuote).join(" "),
    }),
    async scene(name) {
      const dir = join(root.path, `scene-${++scenes}-${name.replace(/[^a-z0-9]+/gi, "-")}`);
      const cp = await new Deno.Command("cp", { args: ["-a", template, dir] }).output();
      if (cp.code !== 0) throw new Error(`cp: ${new TextDecoder().decode(cp.stderr)}`);
      const scratch = join(dir, "scratch");
      await Deno.mkdir(scratch);
      return { dir, repo: join(dir, "repo"), scratch };
    },
    async guarded(scene, command) {
      launchEnv ??= await workerLaunchEnv();
      const ran = await sh(scene.repo, launchEnv, command);
      // A command that named the guard's folder may have broken it: repaired before the next.
      if (command.includes(join(stateDir, "guard"))) launchEnv = null;
      return ran;
    },
    plain: (scene, command) => sh(scene.repo, callerEnv, command),
    has: (program) => findOnPath(program, { PATH: path }) !== null,
    [Symbol.asyncDispose]: () => root[Symbol.asyncDispose](),
  };
}
