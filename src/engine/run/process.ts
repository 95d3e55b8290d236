/**
 * The one process shell every worker launch goes through: writes the launch's files, spawns the
 * CLI as a process-group leader with the prompt on stdin (then closed), hands each stdout and
 * stderr line to the caller with when it was read and when it was certainly written after
 * (engine/run/lines.ts), enforces the timeout and a stop signal by killing the whole group, and
 * reports how the process ended. A launch with a talk (an ACP agent, Launch.talk) keeps stdin
 * open instead: the shell writes what the talk says, hands it each stdout line, and once the talk
 * is over closes stdin and ends the process if it has not ended by itself; a stop or a timeout
 * first says the talk's cancel, and ends the process after the grace time.
 */
import type { HeldSys } from "../../store/state.ts";
import type { ChildHandle } from "../../sys/mod.ts";
import { dirname } from "../../sys/path.ts";
import type { Heard, Launch, LineTime, ProcessEnd } from "../../workers/types.ts";
import { readLines } from "./lines.ts";

/** Options of one process run. */
export interface ShellOptions {
  /** Kill the group after this long. */
  timeoutMs: number;
  /** Aborting stops the worker (`pitroom stop`). */
  stop?: AbortSignal;
  onStdoutLine(line: string, at: LineTime): void;
  onStderrLine?(line: string, at: LineTime): void;
  /**
   * The conversation of a launch with a talk: its lines go to the process's stdin, each stdout
   * line to `hear` (after `onStdoutLine`).
   */
  talk?: {
    open(): string[];
    hear(line: string, at: LineTime): Pick<Heard, "say" | "over">;
    cancel(): string[];
  };
  /** Called once the child is running, with its pid (the group id). */
  onSpawn?(pid: number): void;
  /**
   * Time between SIGTERM and SIGKILL.
   * @default 3000
   */
  killGraceMs?: number;
  /**
   * How long a talked-to worker may take to exit by itself once its talk is over and its stdin
   * closed, before it is ended (its answer is in: only its own tidying up is waited for).
   * @default 1000
   */
  lingerMs?: number;
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

/** Signals the child itself; false when it has ended. */
function killChild(child: ChildHandle, signal: Deno.Signal): boolean {
  try {
    child.kill(signal);
    return true;
  } catch {
    return false;
  }
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
  const talk = options.talk;
  const child = sys.runner.spawn(launch.argv, {
    cwd: launch.cwd,
    env: launch.env,
    stdin: talk !== undefined
      ? { kind: "pipe" }
      : launch.stdin === null
      ? { kind: "null" }
      : { kind: "text", text: launch.stdin },
    detached: true,
  });
  options.onSpawn?.(child.pid);
  let stderrTail = "";
  let timedOut = false;
  let stopped = false;
  const grace = options.killGraceMs ?? 3000;
  const ended = new AbortController();

  // The group, or the child alone in the moment before it leads one (it becomes the leader in
  // the child, through `setsid`: sys/real.ts); a stop asked before the spawn comes then.
  const signal = (name: Deno.Signal) => killGroup(sys, child.pid, name) || killChild(child, name);
  const terminate = () => {
    if (!signal("SIGTERM")) return;
    sys.sleep(grace, ended.signal).then(
      () => signal("SIGKILL"),
      () => {},
    );
  };
  const conversation = talk === undefined ? null : converse(child.stdin ?? null, {
    grace,
    linger: options.lingerMs ?? 1000,
    sleep: (ms) => sys.sleep(ms, ended.signal),
    terminate,
  });
  const timer = sys.sleep(options.timeoutMs, ended.signal).then(
    () => {
      timedOut = true;
      if (conversation === null || talk === undefined) return terminate();
      conversation.cancel(talk.cancel());
    },
    () => {},
  );
  const onStop = () => {
    stopped = true;
    if (conversation === null || talk === undefined) return terminate();
    conversation.cancel(talk.cancel());
  };
  if (options.stop?.aborted) onStop();
  options.stop?.addEventListener("abort", onStop, { once: true });

  const times = { clock: sys.clock, start };
  if (conversation !== null && talk !== undefined) conversation.say(talk.open());
  const onStdout = conversation === null || talk === undefined
    ? options.onStdoutLine
    : (line: string, at: LineTime) => {
      options.onStdoutLine(line, at);
      const heard = talk.hear(line, at);
      conversation.say(heard.say);
      if (heard.over) conversation.close();
    };
  const pumps = Promise.all([
    readLines(child.stdout, onStdout, times),
    readLines(child.stderr, (line, at) => {
      stderrTail = (stderrTail + line + "\n").slice(-STDERR_TAIL);
      options.onStderrLine?.(line, at);
    }, times),
  ]);
  const status = await child.status;
  conversation?.close();
  // Leftovers of the worker (a shell it started, a re-exec) die with it: the group is ours.
  killGroup(sys, child.pid, "SIGKILL");
  await pumps;
  ended.abort();
  await timer;
  await conversation?.closed;
  options.stop?.removeEventListener("abort", onStop);
  return {
    code: status.signal ? null : status.code,
    signal: status.signal,
    timedOut,
    stopped,
    stderr: stderrTail,
  };
}

/** The writing side of a talk: its lines in order, a close, and a cancel that ends in time. */
interface Conversation {
  say(lines: readonly string[]): void;
  /** Closes stdin (the talk is over); the process is ended if it is still there a grace later. */
  close(): void;
  /**
   * Says the cancel; the process is ended a grace later unless the talk is over first (at once
   * when there is nothing to say).
   */
  cancel(lines: readonly string[]): void;
  /** Settles once every write is done or has failed. */
  readonly closed: Promise<void>;
}

function converse(
  stdin: WritableStream<Uint8Array> | null,
  deps: { grace: number; linger: number; sleep(ms: number): Promise<void>; terminate(): void },
): Conversation {
  const encoder = new TextEncoder();
  const writer = stdin?.getWriter() ?? null;
  let chain: Promise<void> = Promise.resolve();
  let shut = false;
  let ending = false;
  /** Ends the process `ms` from now (once), unless it ends first. */
  const endSoon = (ms: number) => {
    if (ending) return;
    ending = true;
    deps.sleep(ms).then(deps.terminate, () => {});
  };
  const write = (task: (w: WritableStreamDefaultWriter<Uint8Array>) => Promise<void>) => {
    if (writer === null) return;
    chain = chain.then(() => task(writer)).catch((error) => {
      // The agent closed its stdin or died: nothing more can be said, and nothing waits for it.
      if (!(error instanceof Deno.errors.BrokenPipe || error instanceof TypeError)) throw error;
      shut = true;
      endSoon(deps.linger);
    });
  };
  const conversation: Conversation = {
    say(lines) {
      if (shut || lines.length === 0) return;
      const bytes = encoder.encode(lines.map((l) => l + "\n").join(""));
      write((w) => w.write(bytes));
    },
    close() {
      if (shut) return;
      shut = true;
      write((w) => w.close());
      endSoon(deps.linger);
    },
    cancel(lines) {
      // Nothing to ask the worker (no turn going yet): it is ended at once.
      if (lines.length === 0 || shut) return deps.terminate();
      conversation.say(lines);
      endSoon(deps.grace);
    },
    get closed() {
      return chain;
    },
  };
  return conversation;
}
