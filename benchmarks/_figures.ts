/**
 * Figures a benchmark can trust. A statistic of no samples is an error, never NaN; a result with a
 * NaN or infinite figure anywhere fails the benchmark (exit 1, naming the figure) before it is
 * printed or kept, instead of printing `NaN` (or `null` in JSON) and exiting 0. Every benchmark
 * script takes its medians and percentiles from here and checks its result with `checkFigures`.
 */

/** A figure that could not be computed: the benchmark measured nothing it can stand behind. */
export class NoFigure extends Error {
  override name = "NoFigure";
}

/** The samples, refused when there are none or one is not a finite number. */
export function samples(values: readonly number[], what: string): readonly number[] {
  if (values.length === 0) throw new NoFigure(`${what}: no samples (nothing matched)`);
  const bad = values.find((v) => !Number.isFinite(v));
  if (bad !== undefined) throw new NoFigure(`${what}: a sample is ${bad}`);
  return values;
}

/** The q-quantile (0..1) by nearest rank below: the value at floor(q x n) of the sorted samples. */
export function quantile(values: readonly number[], q: number, what = "samples"): number {
  const sorted = [...samples(values, what)].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** The median; of an even count, the mean of the two middle samples. */
export function median(values: readonly number[], what = "samples"): number {
  const sorted = [...samples(values, what)].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The path of every number in `result` that is NaN or infinite (`result.search.p50Ms`). */
export function badFigures(result: unknown, path = "result"): string[] {
  if (typeof result === "number") return Number.isFinite(result) ? [] : [`${path} = ${result}`];
  if (typeof result !== "object" || result === null) return [];
  return Object.entries(result).flatMap(([key, value]) =>
    badFigures(value, Array.isArray(result) ? `${path}[${key}]` : `${path}.${key}`)
  );
}

/** Throws (so the benchmark exits non-zero) when a figure of `result` is NaN or infinite. */
export function checkFigures<T>(result: T): T {
  const bad = badFigures(result);
  if (bad.length > 0) throw new NoFigure(`figures that are not numbers: ${bad.join(", ")}`);
  return result;
}

/** A command-line count: an integer of at least `min`, or an error naming the flag. */
export function positive(name: string, text: string, min = 1): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) {
    throw new Error(`--${name} wants an integer >= ${min}, got "${text}"`);
  }
  return n;
}

/** The machine a result was measured on, with the load before and after (two decimals). */
export interface Machine {
  nproc: number;
  loadavgBefore: number[];
  loadavgAfter: number[];
  os: string;
}

/** This machine now, given the load average taken before the measuring began. */
export function machine(loadavgBefore: readonly number[]): Machine {
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    nproc: navigator.hardwareConcurrency,
    loadavgBefore: loadavgBefore.map(round),
    loadavgAfter: Deno.loadavg().map(round),
    os: `${Deno.build.os} ${Deno.build.arch} ${Deno.osRelease()}`,
  };
}

/** Clock ticks per second of the times in `/proc/<pid>/stat` (Linux's USER_HZ). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU time (user + system, ms) of this process's children that have ended and been waited
 * for, with theirs, from the text of `/proc/self/stat` (its `cutime` and `cstime`, in clock ticks
 * of 10 ms); null when the text is not such a line.
 */
export function childrenCpuFromStat(stat: string): number | null {
  // The command's name (in parentheses) may hold spaces: the fields are counted after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).trim().split(" ");
  // Fields 16 and 17 of the line; the first after the name is field 3.
  const user = Number(fields[16 - 3]);
  const system = Number(fields[17 - 3]);
  if (!Number.isInteger(user) || !Number.isInteger(system)) return null;
  return ((user + system) * 1000) / TICKS_PER_SECOND;
}

/**
 * `childrenCpuFromStat` of this process now; null where there is no `/proc` (not Linux). Deno
 * lets only `--allow-all` read `/proc/<pid>/` itself, so `cat` reads it: a child that has not
 * ended yet while it reads, so its own time is not in the figure it prints (it is in the next).
 */
export async function childrenCpuMs(): Promise<number | null> {
  try {
    const out = await new Deno.Command("cat", {
      args: [`/proc/${Deno.pid}/stat`],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return out.success ? childrenCpuFromStat(new TextDecoder().decode(out.stdout)) : null;
  } catch {
    return null;
  }
}
