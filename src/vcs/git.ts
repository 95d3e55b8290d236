/**
 * Runs git for vcs/: every call goes through the `Runner` with a complete, explicit environment
 * (the caller's, minus any variable that would point git at another repository, index or object
 * store), and a failure becomes a `GitError` that names the command and git's own message.
 */
import type { Env, Runner } from "../sys/mod.ts";
import { Exit, PitroomError } from "../sys/errors.ts";
import { decodeLossless, encodeLossless } from "./lossless.ts";

/** The pieces of `Sys` vcs/ uses. */
export interface GitSys {
  readonly runner: Runner;
  readonly env: Env;
}

/** Options of one git call. */
export interface GitCallOptions {
  /** Directory git runs in. */
  cwd: string;
  /** Variables added to the scrubbed base environment. */
  env?: Record<string, string>;
  /** Bytes fed to git's stdin. */
  stdin?: Uint8Array;
  /**
   * Exit codes that are not failures.
   * @default [0]
   */
  okCodes?: number[];
}

/** What a git call printed. */
export interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** git failed: the command, its exit code and the first lines of what it said. */
export class GitError extends PitroomError {
  readonly args: readonly string[];
  readonly status: number;
  readonly stderr: string;

  constructor(args: readonly string[], status: number, stderr: string) {
    const said = stderr.trim().split("\n").slice(0, 3).join(" / ");
    super(
      "git_failed",
      Exit.refused,
      `Git failed: "git ${args.join(" ")}" exited ${status}: ${said}`,
    );
    this.args = args;
    this.status = status;
    this.stderr = stderr;
  }
}

/**
 * Variables that redirect git to another repository, index, object store, config or pathspec
 * mode. An outer git (a hook, an alias) may have set them; vcs/ decides these itself.
 */
const REDIRECTING =
  /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR|NAMESPACE|PREFIX|QUARANTINE_PATH|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|ATTR_SOURCE|LITERAL_PATHSPECS|GLOB_PATHSPECS|NOGLOB_PATHSPECS|ICASE_PATHSPECS|SHALLOW_FILE|REPLACE_REF_BASE|GRAFT_FILE|NO_REPLACE_OBJECTS|TRACE\w*|EXTERNAL_DIFF|DIFF_OPTS)$/;

/** The base environment of every git call: the caller's, scrubbed, never prompting or locking. */
export function gitBaseEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env.toObject())) {
    if (!REDIRECTING.test(name)) out[name] = value;
  }
  out.GIT_TERMINAL_PROMPT = "0";
  // Read-only commands must not refresh (write) the user's index behind our back.
  out.GIT_OPTIONAL_LOCKS = "0";
  out.LC_ALL = "C";
  return out;
}

/**
 * Config every call carries: no fsmonitor hook or daemon, no hooks at all (git calls
 * `post-index-change` on every index written, Pitroom's throwaway ones too, and a
 * `core.hooksPath` inside the tree is something a worker can write: it must never run outside
 * the worker's sandbox), no split index (whose shared part would be written next to the user's
 * index), no automatic gc or maintenance, and paths printed as they are.
 */
const FIXED_CONFIG = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.splitIndex=false",
  "-c",
  "gc.auto=0",
  "-c",
  "maintenance.auto=false",
  "-c",
  "core.quotePath=false",
  "-c",
  "advice.addEmbeddedRepo=false",
];

/** Runs `git <args>` and returns its output; throws `GitError` on an exit code not allowed. */
export async function git(
  sys: GitSys,
  args: string[],
  options: GitCallOptions,
): Promise<GitOutput> {
  const env = { ...gitBaseEnv(sys.env), ...options.env };
  const argv = ["git", ...FIXED_CONFIG, ...args];
  const out = await sys.runner.run(argv, {
    cwd: options.cwd,
    env,
    ...(options.stdin === undefined ? {} : { stdinBytes: options.stdin }),
  });
  if (!(options.okCodes ?? [0]).includes(out.code)) throw new GitError(args, out.code, out.stderr);
  // Paths are bytes: read losslessly (see lossless.ts).
  const stdout = out.stdoutBytes === undefined ? out.stdout : decodeLossless(out.stdoutBytes);
  return { code: out.code, stdout, stderr: out.stderr };
}

/** Runs `git <args>` and returns what it printed on stdout as bytes; throws `GitError` on failure. */
export async function gitBytes(
  sys: GitSys,
  args: string[],
  options: GitCallOptions,
): Promise<Uint8Array> {
  const env = { ...gitBaseEnv(sys.env), ...options.env };
  const out = await sys.runner.run(["git", ...FIXED_CONFIG, ...args], {
    cwd: options.cwd,
    env,
    ...(options.stdin === undefined ? {} : { stdinBytes: options.stdin }),
  });
  if (!(options.okCodes ?? [0]).includes(out.code)) throw new GitError(args, out.code, out.stderr);
  return out.stdoutBytes ?? new TextEncoder().encode(out.stdout);
}

/** Encodes paths as git's `-z` / `--stdin` NUL-terminated list (bytes as they were read). */
export function nulList(items: readonly string[]): Uint8Array {
  return encodeLossless(items.map((item) => `${item}\0`).join(""));
}
