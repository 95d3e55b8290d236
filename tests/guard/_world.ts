/**
 * The world the escape suite runs in: a user's repository with work in every state git knows
 * (a second commit, a branch, a stash, staged and unstaged changes, an untracked file, an ignored
 * `.env`, a bare remote), copied afresh for each escape; a home folder holding the credentials a
 * hostile worker goes for (SSH, AWS, forges, registries, every worker CLI's login); a state dir
 * holding what Pitroom keeps there (the MCP token, another run's record, the history), and, when
 * an escape names it, the real `pitroom mcp --http` serving that state dir; the exact
 * environment a codex worker gets (built by `workerEnv`, the function the engine's attempts use,
 * then the backend's launch), wrapped as the engine wraps an attempt (confine/sandboxing.ts, with
 * the tree's secret files the engine finds); and a fingerprint of everything the guard promises
 * to keep.
 */
import { join } from "node:path";
import { workerEnv } from "../../src/confine/env.ts";
import { findSecrets } from "../../src/confine/secrets.ts";
import { trackTree } from "../../src/engine/tree/tree.ts";
import { statePaths } from "../../src/store/paths.ts";
import { sandboxAttempt } from "../../src/confine/sandboxing.ts";
import { defaultSandboxSetting } from "../../src/confine/sandbox/mod.ts";
import { codexLaunch } from "../../src/workers/codex/argv.ts";
import { findOnPath } from "../../src/workers/_detect.ts";
import { placeLiveRun } from "../support/live_run.ts";
import { moduleCacheEnv, pitroomArgv } from "../support/pitroom.ts";
import { testSys } from "../support/sys.ts";
import { git } from "../support/temp.ts";

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

/** What the state dir holds that no worker may read (marked so a leak shows). */
export const STATE_SECRETS = {
  token: "mcp-escape-token-0123456789abcdef",
  otherRun: "other-run-escape-secret",
  history: "history-escape-secret",
};

/** Credential files of the user's home folder (the worker is codex: its own login is shown). */
export const HOME_FILES: Readonly<Record<string, string>> = {
  ".ssh/id_ed25519": "ssh-key-escape-secret",
  ".aws/credentials": "aws-file-escape-secret",
  ".config/gh/hosts.yml": "gh-escape-secret",
  ".npmrc": "npmrc-escape-secret",
  ".netrc": "netrc-escape-secret",
  ".docker/config.json": "docker-escape-secret",
  ".kube/config": "kube-escape-secret",
  ".git-credentials": "git-credentials-escape-secret",
  ".local/share/opencode/auth.json": "opencode-login-escape-secret",
  ".claude/.credentials.json": "claude-login-escape-secret",
  ".gemini/oauth_creds.json": "gemini-login-escape-secret",
  ".codex/auth.json": "codex-own-login",
};

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
  // A key committed by mistake: blank in the sandbox, but in the history.
  await write("deploy.pem", "committed-key-escape-secret\n");
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
  const other = join(dir, "other");
  await Deno.mkdir(other);
  await git(other, "init", "-q", "-b", "main");
  await Deno.writeTextFile(join(other, "theirs.txt"), "another repository\n");
  await git(other, "add", "-A");
  await git(other, "commit", "-qm", "theirs");
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
  const other = await readTree(
    join(dir, "other"),
    (p) => p.startsWith(".git/") && !/^\.git\/(HEAD|config|refs(\/.*)?|hooks(\/.*)?)$/.test(p),
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
    ...other.map(([p, t]) => [`other:${p}`, t]),
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
  /** A scratch folder outside the repository (writable in the sandbox: `sandbox.writable`). */
  scratch: string;
  /** Another repository of the user's, next to this one. */
  other: string;
  /** A marker for processes an escape starts (`sleep {TAG}`). */
  tag: string;
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
  /** True when `program` is installed (on the caller's PATH); `root` when running as root. */
  has(program: string): boolean;
  /** True when `guarded` runs commands in the sandbox (src/confine/sandbox/) too. */
  readonly sandboxed: boolean;
  /** What an escape could change outside the scene's repositories: $HOME, /etc, /tmp, processes. */
  outside(scene: Scene, options?: { settle?: boolean }): Promise<Record<string, string>>;
  /** Ends the processes an escape left behind (by pid). */
  endLeftovers(scene: Scene): Promise<void>;
  /** Starts the real `pitroom mcp --http` on the state dir (once), for `{MCPURL}`. */
  startMcp(): Promise<void>;
}

/** Live `sleep <tag>` processes, as `pid args` lines. */
async function sleepers(tag: string): Promise<string[]> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "pid=,stat=,args="] }).output();
  return new TextDecoder().decode(ps.stdout).split("\n").map((l) => l.trim())
    .filter((l) => new RegExp(`^\\d+\\s+[^Z\\s]\\S*\\s+sleep ${tag.replace(".", "\\.")}$`).test(l));
}

async function sh(
  cwd: string,
  env: Record<string, string>,
  command: string | string[],
): Promise<Ran> {
  const argv = typeof command === "string" ? ["sh", "-c", command] : command;
  const out = await new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd,
    env: { ...moduleCacheEnv(), ...env },
    clearEnv: true,
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Builds the escape world; with `sandbox`, `guarded` runs in the sandbox a worker gets. */
export async function escapeWorld(options: { sandbox?: boolean } = {}): Promise<EscapeWorld> {
  // Not under /tmp, which the sandbox replaces with a private one: the user's repositories and
  // the folders next to them (the remote, another repository) are where a user keeps them.
  const rootPath = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "pitroom-escapes-" });
  const root = {
    path: rootPath,
    [Symbol.asyncDispose]: () => Deno.remove(rootPath, { recursive: true }),
  };
  const template = join(root.path, "template");
  await buildTemplate(template);
  const home = join(root.path, "home");
  await Deno.mkdir(home);
  await Deno.writeTextFile(join(home, ".bashrc"), "# the user's own\n");
  for (const [path, text] of Object.entries(HOME_FILES)) {
    await Deno.mkdir(join(home, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(home, path), text, { mode: 0o600 });
  }
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
  await fillState(callerSys, template);
  // The tree's secret-looking files, found as the engine finds them (engine/workspace.ts).
  const secretPaths = await treeSecrets(callerSys, join(template, "repo"));
  let mcp: { url: string; end(): Promise<void> } | null = null;

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
      OTHER: scene.other,
      TAG: scene.tag,
      ETC: `/etc/pitroom-escape-${scene.tag}`,
      TMPFILE: `/tmp/pitroom-escape-${scene.tag}`,
      PITROOM: pitroomArgv().map(shQuote).join(" "),
      STATE: stateDir,
      MCPURL: mcp?.url ?? "http://127.0.0.1:9/mcp",
    }),
    async scene(name) {
      const dir = join(root.path, `scene-${++scenes}-${name.replace(/[^a-z0-9]+/gi, "-")}`);
      const cp = await new Deno.Command("cp", { args: ["-a", template, dir] }).output();
      if (cp.code !== 0) throw new Error(`cp: ${new TextDecoder().decode(cp.stderr)}`);
      const scratch = join(dir, "scratch");
      await Deno.mkdir(scratch);
      const tag = `4100.${scenes}${Math.floor(Math.random() * 1e6)}`;
      return { dir, repo: join(dir, "repo"), scratch, other: join(dir, "other"), tag };
    },
    async guarded(scene, command) {
      launchEnv ??= await workerLaunchEnv();
      const launch = {
        argv: ["sh", "-c", command],
        env: launchEnv,
        cwd: scene.repo,
        files: [],
        stdin: null,
      };
      let argv = launch.argv;
      let env = launchEnv;
      if (options.sandbox === true) {
        const privateDir = join(scene.dir, "private");
        await Deno.mkdir(privateDir, { recursive: true });
        // As the engine wraps an attempt: Pitroom's state dir, the home's credentials and the
        // other CLIs' logins hidden (confine/sandboxing.ts).
        const wrapped = await sandboxAttempt(callerSys, launch, {
          mode: "write",
          privateDir,
          worker: "codex",
          secrets: secretPaths.map((p) => join(scene.repo, p)),
          setting: { ...defaultSandboxSetting(), mode: "required", writable: [scene.scratch] },
        });
        argv = wrapped.launch.argv;
        env = wrapped.launch.env;
      }
      const ran = await sh(scene.repo, env, argv);
      // A command that named the guard's folder may have broken it: repaired before the next.
      if (command.includes(join(stateDir, "guard"))) launchEnv = null;
      return ran;
    },
    plain: (scene, command) => sh(scene.repo, callerEnv, command),
    has: (program) =>
      program === "root" ? Deno.uid() === 0 : findOnPath(program, { PATH: path }) !== null,
    sandboxed: options.sandbox === true,
    async outside(scene, o = {}) {
      const read = async (p: string) => {
        try {
          return await Deno.readTextFile(p);
        } catch (error) {
          if (error instanceof Deno.errors.NotFound) return "<none>";
          throw error;
        }
      };
      // A daemon of a sandboxed command dies with its PID namespace, a moment after the command.
      const deadline = Date.now() + (o.settle ? 1000 : 0);
      let live = await sleepers(scene.tag);
      while (live.length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        live = await sleepers(scene.tag);
      }
      return {
        "home:.bashrc": await read(join(home, ".bashrc")),
        "home:.profile": await read(join(home, ".profile")),
        "etc:file": await read(`/etc/pitroom-escape-${scene.tag}`),
        "tmp:file": await read(`/tmp/pitroom-escape-${scene.tag}`),
        "proc:daemons": String(live.length),
      };
    },
    async endLeftovers(scene) {
      for (const line of await sleepers(scene.tag)) {
        Deno.kill(Number(line.split(/\s+/)[0]), "SIGKILL");
      }
      for (const file of [`/etc/pitroom-escape-${scene.tag}`, `/tmp/pitroom-escape-${scene.tag}`]) {
        await Deno.remove(file).catch((error) => {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        });
      }
      await Deno.writeTextFile(join(home, ".bashrc"), "# the user's own\n");
      await Deno.remove(join(home, ".profile")).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    },
    async startMcp() {
      mcp ??= await serveMcp(onlyCaller, template);
    },
    async [Symbol.asyncDispose]() {
      await mcp?.end();
      await root[Symbol.asyncDispose]();
    },
  };
}

/** The state dir's secrets: the MCP token, another run's record, the history. */
async function fillState(sys: { stateDir: string }, template: string): Promise<void> {
  const paths = statePaths(sys.stateDir);
  await Deno.mkdir(paths.root, { recursive: true });
  await Deno.writeTextFile(join(paths.root, "mcp-token"), `${STATE_SECRETS.token}\n`, {
    mode: 0o600,
  });
  await Deno.writeTextFile(paths.history, STATE_SECRETS.history);
  await placeLiveRun(paths, {
    task: `an earlier task: ${STATE_SECRETS.otherRun}`,
    cwd: join(template, "repo"),
    now: Date.now(),
  });
}

/** The tree's secret-looking paths, relative to its root, as the engine finds them. */
async function treeSecrets(
  sys: Parameters<typeof trackTree>[0] & { stateDir: string },
  repo: string,
): Promise<string[]> {
  const tree = await trackTree(sys, statePaths(sys.stateDir), repo);
  if (tree === null) throw new Error(`${repo} is not a repository`);
  const before = await tree.snapshot();
  const found = findSecrets(await tree.files(before), before.ignored);
  return [...found.tracked, ...found.ignored].map((p) => p.replace(/\/+$/, ""));
}

/** The real `pitroom mcp --http` on the state dir of `env`, until `end()`. */
async function serveMcp(
  env: Record<string, string>,
  template: string,
): Promise<{ url: string; end(): Promise<void> }> {
  const [command, ...args] = pitroomArgv();
  const child = new Deno.Command(command!, {
    args: [...args, "mcp", "--http", "--port", "0"],
    cwd: join(template, "repo"),
    env: { ...moduleCacheEnv(), ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/register it: .*\n/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`pitroom mcp --http ended before listening:\n${text}`);
    text += value;
  }
  const drained = (async () => {
    while (!(await reader.read()).done) { /* the rest of its stderr */ }
  })();
  const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text)![1]!;
  return {
    url,
    async end() {
      child.kill("SIGTERM");
      await child.status;
      await drained;
    },
  };
}
