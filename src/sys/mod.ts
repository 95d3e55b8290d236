/**
 * The `Sys` seam: the only code that touches processes, the environment, the clock, timers,
 * random ids, the terminal and the state-dir root. Everything else receives a `Sys` (or the
 * piece it needs), so tests can hand in a fake clock, a temp state dir and their own env.
 */

/** Read access to the environment. */
export interface Env {
  get(name: string): string | undefined;
  toObject(): Record<string, string>;
}

/** A pending timer of the `Clock`. */
export interface Timer {
  /** Stops it; a timer that fired or was cancelled already stays quiet. */
  cancel(): void;
}

/** The clock: wall time in ms since the epoch, and the timers that run on it. */
export interface Clock {
  now(): number;
  /** Calls `fn` once, `ms` from now. */
  after(ms: number, fn: () => void): Timer;
  /** Calls `fn` every `ms` until cancelled. */
  every(ms: number, fn: () => void): Timer;
}

/** Resolves `ms` from now on `clock`, or rejects with the signal's reason when aborted. */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.after(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * How a spawned process gets its stdin: none, a text written and then closed, or a pipe the
 * caller writes (`ChildHandle.stdin`) and closes.
 */
export type StdinSpec = { kind: "null" } | { kind: "text"; text: string } | { kind: "pipe" };

/** What to spawn. */
export interface SpawnOptions {
  cwd?: string;
  /** The complete environment of the child (nothing is inherited when set). */
  env?: Record<string, string>;
  stdin?: StdinSpec;
  /** Make the child a process-group leader so the whole group can be killed. */
  detached?: boolean;
  /** Where stdout/stderr go. `piped` by default. */
  stdout?: "piped" | "null";
  stderr?: "piped" | "null";
}

/** A running child process. */
export interface ChildHandle {
  readonly pid: number;
  /** The child's stdin, for a `pipe` stdin (null otherwise). */
  readonly stdin?: WritableStream<Uint8Array> | null;
  readonly stdout: ReadableStream<Uint8Array> | null;
  readonly stderr: ReadableStream<Uint8Array> | null;
  readonly status: Promise<{ code: number; signal: string | null }>;
  kill(signal?: Deno.Signal): void;
  /** Let the parent exit without waiting for this child. */
  unref(): void;
}

/** The result of a captured command. */
export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as the bytes the command wrote (`stdout` is their UTF-8 reading). */
  stdoutBytes?: Uint8Array;
}

/** The one process runner. */
export interface Runner {
  /** Runs a command to completion and captures its output. */
  run(argv: string[], options?: SpawnOptions & { stdinBytes?: Uint8Array }): Promise<Captured>;
  /** Starts a command and hands back the child. */
  spawn(argv: string[], options?: SpawnOptions): ChildHandle;
  /**
   * Sends `signal` to process `pid` (a negative pid: to that process group); false when there
   * is no such process (any more).
   */
  kill(pid: number, signal: Deno.Signal): boolean;
}

/** Human output (stderr) and data output (stdout). */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when stdout is a terminal. */
  readonly isTTY: boolean;
  /** True when stderr is a terminal (a person reads it: a progress line may be redrawn there). */
  readonly errIsTTY: boolean;
  /** True when colour may be used on stderr. */
  readonly color: boolean;
}

/** The seam every effect goes through. */
export interface Sys {
  readonly env: Env;
  readonly clock: Clock;
  readonly runner: Runner;
  readonly out: Output;
  /** Pitroom's state dir (`PITROOM_STATE_DIR`, else `$XDG_STATE_HOME/pitroom`). */
  readonly stateDir: string;
  /** Pitroom's config file (`PITROOM_CONFIG`, else `$XDG_CONFIG_HOME/pitroom/config.json`). */
  readonly configPath: string;
  /** This process's id. */
  readonly pid: number;
  /** The working directory commands resolve paths against. */
  cwd(): string;
  /** `bytes` random bytes as lowercase hex. */
  randomHex(bytes: number): string;
  /** Resolves after `ms` on `clock`, or rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** The argv that starts this same program again (binary, or deno with the permission set). */
  selfCommand(): string[];
}
