/**
 * The one process shell every worker launch goes through: writes the launch's files, spawns the
 * CLI as a process-group leader with the prompt on stdin (then closed), hands each stdout and
 * stderr line to the caller with when it was read and when it was certainly written after
 * (engine/run/lines.ts), enforces the timeout and a stop signal by killing the whole group, and
 * reports how the process ended.
 */
import type { HeldSys } from "../../store/state.ts";
import { dirname } from "../../sys/path.ts";
import type { Launch, LineTime, ProcessEnd } from "../../workers/types.ts";
import { readLines } from "./lines.ts";

/** Options of one process run. */
export interface ShellOptions {
  /** Kill the group after this long. */
  timeoutMs: number;
  /** Aborting stops the worker (`pitroom stop`). */
  stop?: AbortSignal;
  onStdoutLine(line: string, at: LineTime): void;
  onStderrLine?(line: string, at: LineTime): void;
  /** Called once the child is running, with its pid (the group id). */
  onSpawn?(pid: number): void;
  /**
   * Time between SIGTERM and SIGKILL.
   * @default 3000
   */
  killGraceMs?: number;
}

const STDERR_TAIL = 64 * 1024;

/** Writes the files a launch describes, owner-only unless told otherwise. */
export async function writeLaunchFiles(launch: Launch): Promise<void> {
  for (const file of launch.files) {
    await Deno.mkdir(dirname(file.path), { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(file.path, file.content, { mode: file.mode ?? 0o600 });
  }
}

/** Sends a signal to a whole process group; false for a group that is gone already. */
export function killGroup(sys: Pick<HeldSys, "runner">, pid: number, signal: Deno.Signal): boolean {
  return sys.runner.kill(-pid, signal);
}

/** Runs a described launch to its end. */
export async function runProcess(
  sys: HeldSys,
  launch: Launch,
  options: ShellOptions,
): Promise<ProcessEnd> {
  await writeLaunchFiles(launch);
  // Before the spawn: nothing the process writes, and no time it states, is older.
  const start = sys.clock.now();
  const child = sys.runner.spawn(launch.argv, {
    cwd: launch.cwd,
    env: launch.env,
    stdin: launch.stdin === null ? { kind: "null" } : { kind: "text", text: launch.stdin },
    detached: true,
  });
  options.onSpawn?.(child.pid);
  let stderrTail = "";
  let timedOut = false;
  let stopped = false;
  const grace = options.killGraceMs ?? 3000;
  const ended = new AbortController();

  const terminate = () => {
    if (!killGroup(sys, child.pid, "SIGTERM")) return;
    sys.sleep(grace, ended.signal).then(
      () => killGroup(sys, child.pid, "SIGKILL"),
      () => {},
    );
  };
  const timer = sys.sleep(options.timeoutMs, ended.signal).then(
    () => {
      timedOut = true;
      terminate();
    },
    () => {},
  );
  const onStop = () => {
    stopped = true;
    terminate();
  };
  if (options.stop?.aborted) onStop();
  options.stop?.addEventListener("abort", onStop, { once: true });

  const times = { clock: sys.clock, start };
  const pumps = Promise.all([
    readLines(child.stdout, options.onStdoutLine, times),
    readLines(child.stderr, (line, at) => {
      stderrTail = (stderrTail + line + "\n").slice(-STDERR_TAIL);
      options.onStderrLine?.(line, at);
    }, times),
  ]);
  const status = await child.status;
  // Leftovers of the worker (a shell it started, a re-exec) die with it: the group is ours.
  killGroup(sys, child.pid, "SIGKILL");
  await pumps;
  ended.abort();
  await timer;
  options.stop?.removeEventListener("abort", onStop);
  return {
    code: status.signal ? null : status.code,
    signal: status.signal,
    timedOut,
    stopped,
    stderr: stderrTail,
  };
}
