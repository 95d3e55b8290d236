/**
 * Timing processes and summarising samples: one spawn timed from before `spawn()` to its exit
 * status, medians, and the round-robin order every comparison in this benchmark uses.
 */
import { median } from "../_figures.ts";

/** One process to time. */
export interface Invocation {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** Written to stdin, which is then closed; without it stdin is closed from the start. */
  stdin?: string;
}

/** What a timed process did. */
export interface Timed {
  ms: number;
  /** When it was spawned and when it ended, on the wall clock (ms since the epoch). */
  startedAt: number;
  endedAt: number;
  code: number;
  stdout: string;
  stderr: string;
}

const decoder = new TextDecoder();

/** Runs `inv` to its end and returns the wall time in milliseconds with its output. */
export async function timeProcess(inv: Invocation): Promise<Timed> {
  const [cmd, ...args] = inv.argv;
  const command = new Deno.Command(cmd!, {
    args,
    cwd: inv.cwd,
    env: inv.env,
    clearEnv: true,
    stdin: inv.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const start = performance.now();
  const startedAt = performance.timeOrigin + start;
  const child = command.spawn();
  if (inv.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(inv.stdin));
    await writer.close();
  }
  const out = await child.output();
  const ms = performance.now() - start;
  return {
    ms,
    startedAt,
    endedAt: startedAt + ms,
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
  };
}

/** Samples of one side of a comparison and their median. */
export interface Series {
  samplesMs: number[];
  medianMs: number;
}

/** The median (the mean of the middle two); no samples is an error, not NaN. */
export { median };

/** Rounds to one decimal, for reports. */
export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/** A series from raw samples. */
export function series(samples: readonly number[], what = "samples"): Series {
  return { samplesMs: samples.map(round1), medianMs: round1(median(samples, what)) };
}

/**
 * Runs every named measurement once per round, in the same order each round (A B C A B C ...),
 * after `warmup` unrecorded rounds, and returns the samples by name. A measurement returns
 * its time in ms and throws when the process did not do what was expected.
 */
export async function interleave<K extends string>(
  measurements: Record<K, () => Promise<number>>,
  options: {
    rounds: number;
    warmup: number;
    onRound?: (round: number) => void;
    /** Called once the warm-up rounds are over, before the first recorded one. */
    onWarm?: () => void;
  },
): Promise<Record<K, number[]>> {
  const names = Object.keys(measurements) as K[];
  const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let round = -options.warmup; round < options.rounds; round++) {
    if (round === 0) options.onWarm?.();
    for (const name of names) {
      const ms = await measurements[name]();
      if (round >= 0) samples[name].push(ms);
    }
    if (round >= 0) options.onRound?.(round + 1);
  }
  return samples;
}

/** Throws with the process's output when it did not exit 0 or lacks `expect` on stdout. */
export function checked(what: string, result: Timed, expect?: string): number {
  if (result.code !== 0 || (expect !== undefined && !result.stdout.includes(expect))) {
    const tail = (text: string) => text.trim().split("\n").slice(-8).join("\n");
    throw new Error(
      `${what} exited ${result.code}` +
        (expect !== undefined ? ` (expected "${expect}" on stdout)` : "") +
        `\nstdout:\n${tail(result.stdout)}\nstderr:\n${tail(result.stderr)}`,
    );
  }
  return result.ms;
}

/**
 * Pitroom's own part of a run, from the timing marks it prints with `PITROOM_DEBUG_TIMING`
 * (src/sys/timing.ts, on the same wall clock): from its spawn to the worker's, plus from the
 * worker's end to its own. The worker's own time, which varies by tens of ms from run to run
 * for some CLIs, is left out. Null when the run printed no such marks (a pitroom without them).
 */
export function ownPart(result: Timed): { beforeMs: number; afterMs: number } | null {
  const marks = new Map<string, number>();
  for (const line of result.stderr.split("\n")) {
    const [tag, phase, at] = line.trim().split(" ");
    if (tag === "pitroom-timing" && phase !== undefined && at !== undefined) {
      marks.set(phase, Number(at));
    }
  }
  const spawned = marks.get("spawned");
  const ended = marks.get("worker-ended");
  if (spawned === undefined || ended === undefined) return null;
  return { beforeMs: spawned - result.startedAt, afterMs: result.endedAt - ended };
}
