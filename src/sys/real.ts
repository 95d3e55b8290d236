/**
 * The real `Sys`: Deno's processes, environment, clock and terminal.
 */
import { dirname, fromFileUrl, join } from "./path.ts";
import {
  type Captured,
  type ChildHandle,
  type Clock,
  type Env,
  type Output,
  type Runner,
  sleepOn,
  type SpawnOptions,
  type Sys,
} from "./mod.ts";
import { statOrNullSync } from "./fs.ts";

const encoder = new TextEncoder();

/** Whether `path` is a file someone may execute (as an `exec` through `PATH` skips others). */
function runnable(path: string): boolean {
  const info = statOrNullSync(path);
  return info !== null && info.isFile && (info.mode === null || (info.mode & 0o111) !== 0);
}

/**
 * A program on a `PATH`, or null (a name with a slash is taken as it is, if absolute). Only the
 * absolute folders of `PATH` are searched: a program in a relative one is left to Deno's own
 * spawn, which finds it as it always did.
 */
function onPath(name: string, path: string): string | null {
  if (name.includes("/")) return name.startsWith("/") && runnable(name) ? name : null;
  for (const dir of path.split(":")) {
    if (!dir.startsWith("/")) continue;
    const candidate = join(dir, name);
    if (runnable(candidate)) return candidate;
  }
  return null;
}

let setsidFound: string | null | undefined;

/**
 * util-linux's `setsid`, found once (Linux only). A detached child (a group leader of its own)
 * is started through it: Deno makes one by forking this whole process, which blocks it for
 * 7-25 ms per child (more as the process grows; a host starting a crew of ten spent 160 ms so),
 * where a plain spawn takes 1 ms and `setsid` makes the child its group's leader in the child.
 */
function setsid(): string | null {
  if (setsidFound === undefined) {
    setsidFound = Deno.build.os === "linux" ? onPath("setsid", Deno.env.get("PATH") ?? "") : null;
  }
  return setsidFound;
}

/**
 * The argv and `detached` of a spawn: a detached one through `setsid` where there is one and
 * the program is found first (else as asked, so a missing program fails as it always did).
 */
function leaderArgv(
  argv: [string, ...string[]],
  options: SpawnOptions,
): { argv: [string, ...string[]]; detached: boolean } {
  if (options.detached !== true) return { argv, detached: false };
  const wrapper = setsid();
  const path = options.env === undefined ? Deno.env.get("PATH") : options.env.PATH;
  const program = wrapper === null ? null : onPath(argv[0], path ?? "");
  if (wrapper === null || program === null) return { argv, detached: true };
  // No `--`: the program is an absolute path, which no setsid takes for an option.
  return { argv: [wrapper, program, ...argv.slice(1)], detached: false };
}

function spawnChild(given: string[], options: SpawnOptions): Deno.ChildProcess {
  if (given[0] === undefined) throw new TypeError("spawn needs a command");
  const { argv: [cmd, ...args], detached } = leaderArgv(given as [string, ...string[]], options);
  const stdinKind = options.stdin?.kind ?? "null";
  const command = new Deno.Command(cmd, {
    args,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env, clearEnv: true }),
    stdin: stdinKind === "null" ? "null" : "piped",
    stdout: options.stdout ?? "piped",
    stderr: options.stderr ?? "piped",
    detached,
  });
  return command.spawn();
}

async function feed(child: Deno.ChildProcess, bytes: Uint8Array): Promise<void> {
  const writer = child.stdin.getWriter();
  try {
    await writer.write(bytes);
  } catch (error) {
    // A child that exits without reading its stdin closes the pipe: that is its business.
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
  } finally {
    await writer.close().catch((error) => {
      if (!(error instanceof Deno.errors.BrokenPipe) && !(error instanceof TypeError)) throw error;
    });
  }
}

/** The longest delay a timer takes (about 24.8 days); a longer one would fire at once. */
const TIMER_MAX_MS = 2 ** 31 - 1;

/**
 * The real clock: `Date.now()`, and timers on `AbortSignal.timeout`, the runtime's own timer,
 * which holds the process while its signal has a listener. Not the global `setTimeout`: its first
 * call loads node's timers (12-15 ms of the process's one thread, 30-80 ms on a busy machine),
 * and a run arms its first timers right after its worker's spawn.
 */
export const realClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const delay = Number.isNaN(ms) ? 0 : Math.min(TIMER_MAX_MS, Math.max(0, Math.floor(ms)));
    const signal = AbortSignal.timeout(delay);
    const fire = () => fn();
    signal.addEventListener("abort", fire, { once: true });
    // Without its listener the timer no longer holds the process, and fires into nothing.
    return { cancel: () => signal.removeEventListener("abort", fire) };
  },
  every(ms, fn) {
    // The next tick is armed before `fn` runs, so `fn` may cancel the ticker.
    let timer = realClock.after(ms, function tick() {
      timer = realClock.after(ms, tick);
      fn();
    });
    return { cancel: () => timer.cancel() };
  },
};

/** The real process runner. */
export const realRunner: Runner = {
  async run(argv, options = {}): Promise<Captured> {
    const stdinBytes = options.stdinBytes ??
      (options.stdin?.kind === "text" ? encoder.encode(options.stdin.text) : undefined);
    const child = spawnChild(argv, {
      ...options,
      stdin: stdinBytes === undefined ? { kind: "null" } : { kind: "text", text: "" },
    });
    const fed = stdinBytes === undefined ? Promise.resolve() : feed(child, stdinBytes);
    const [out] = await Promise.all([child.output(), fed]);
    const decoder = new TextDecoder();
    return {
      code: out.code,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
      stdoutBytes: out.stdout,
    };
  },
  spawn(argv, options = {}): ChildHandle {
    const child = spawnChild(argv, options);
    if (options.stdin?.kind === "text") {
      // The prompt goes in, then stdin is closed: an open stdin blocks the worker CLIs.
      // feed() already treats a closed pipe as normal; a child that vanished otherwise shows
      // in its exit status, which the caller reads.
      feed(child, encoder.encode(options.stdin.text)).catch(() => undefined);
    }
    const status = child.status.then((s) => ({ code: s.code, signal: s.signal }));
    return {
      pid: child.pid,
      stdin: options.stdin?.kind === "pipe" ? child.stdin : null,
      stdout: options.stdout === "null" ? null : child.stdout,
      stderr: options.stderr === "null" ? null : child.stderr,
      status,
      kill: (signal) => {
        try {
          child.kill(signal);
        } catch (error) {
          if (!(error instanceof TypeError) && !(error instanceof Deno.errors.NotFound)) {
            throw error;
          }
        }
      },
      unref: () => child.unref(),
    };
  },
  kill(pid, signal) {
    try {
      Deno.kill(pid, signal);
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof TypeError) return false;
      if (error instanceof Error && /ESRCH|No such process/i.test(error.message)) return false;
      throw error;
    }
  },
};

const realEnv: Env = {
  get: (name) => Deno.env.get(name),
  toObject: () => Deno.env.toObject(),
};

const realOutput: Output = {
  stdout: (text) => writeAll(Deno.stdout, text),
  stderr: (text) => writeAll(Deno.stderr, text),
  get isTTY() {
    return Deno.stdout.isTerminal();
  },
  get errIsTTY() {
    return Deno.stderr.isTerminal();
  },
  get color() {
    return Deno.stderr.isTerminal() && Deno.env.get("NO_COLOR") === undefined;
  },
};

function writeAll(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  try {
    while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
  } catch (error) {
    // A closed pipe (`pitroom ls | head`) ends output quietly.
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
  }
}

/** The state dir: `PITROOM_STATE_DIR`, else `$XDG_STATE_HOME/pitroom`, else `~/.local/state/pitroom`. */
function stateDirFrom(env: Env): string {
  const explicit = env.get("PITROOM_STATE_DIR");
  if (explicit) return explicit;
  const xdg = env.get("XDG_STATE_HOME");
  if (xdg) return join(xdg, "pitroom");
  return join(env.get("HOME") ?? "/tmp", ".local", "state", "pitroom");
}

/** The config file: `PITROOM_CONFIG`, else `$XDG_CONFIG_HOME/pitroom/config.json`. */
export function configPathFrom(env: Env): string {
  const explicit = env.get("PITROOM_CONFIG");
  if (explicit) return explicit;
  const xdg = env.get("XDG_CONFIG_HOME");
  if (xdg) return join(xdg, "pitroom", "config.json");
  return join(env.get("HOME") ?? "/tmp", ".config", "pitroom", "config.json");
}

/**
 * The V8 flags every Pitroom process runs with: `deno compile` bakes them into the binary
 * (scripts/compile.ts), and a Pitroom started by `deno run` passes them on to the processes it
 * starts of itself (`selfCommand` below), as the tests' and benchmarks' starts do
 * (tests/support/pitroom.ts). Kept here, beside `selfCommand`, so that no command loads a module
 * more for them.
 *
 * `--no-lazy` compiles every function of a module when the module is compiled, so the code cache
 * holds them all: a run calls most of the functions of the chunks it loads, each of which V8
 * would otherwise compile from source at its first call, in every process. A read run on the
 * 31,000-file tree took 14-57 ms less (benchmarks/phases/README.md, stop 43). V8 refuses a code
 * cache made under other compiler flags, so every process that loads the same modules must run
 * with the same flags, or each recompiles what the other cached.
 */
export const V8_FLAGS: readonly string[] = ["--no-lazy"];

/** `V8_FLAGS` as the one argument `deno run` and `deno compile` take them in. */
export const V8_FLAGS_ARG = `--v8-flags=${V8_FLAGS.join(",")}`;

/**
 * The argv that starts this program again. A compiled binary is its own program; under
 * `deno run` it is deno with the permission set of the nearest deno.json (defined once there).
 */
export function selfCommand(): string[] {
  if (Deno.build.standalone) return [Deno.execPath()];
  const main = Deno.mainModule.startsWith("file:") ? fromFileUrl(Deno.mainModule) : Deno.mainModule;
  let dir = dirname(main);
  for (;;) {
    const config = join(dir, "deno.json");
    if (statOrNullSync(config)?.isFile) {
      return [
        Deno.execPath(),
        "run",
        "--quiet",
        "--no-prompt",
        `--config=${config}`,
        "-P=pitroom",
        V8_FLAGS_ARG,
        main,
      ];
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error(`cannot find deno.json above ${main}`);
}

/** The real `Sys` of this process. */
export function realSys(): Sys {
  return {
    env: realEnv,
    clock: realClock,
    runner: realRunner,
    out: realOutput,
    stateDir: stateDirFrom(realEnv),
    configPath: configPathFrom(realEnv),
    pid: Deno.pid,
    cwd: () => Deno.cwd(),
    randomHex(bytes) {
      const buf = crypto.getRandomValues(new Uint8Array(bytes));
      return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
    },
    sleep: (ms, signal) => sleepOn(realClock, ms, signal),
    selfCommand,
  };
}
