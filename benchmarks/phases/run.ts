/**
 * A run's phases: `pitroom run` (read, and `-w` write) as a user starts it, with a stub worker
 * that answers at once, on the 31,000-file repository of benchmarks/tree/, against one
 * `git status --porcelain` of the same tree, interleaved in one process (git status, read run,
 * write run, ...), as medians and ratios. Each run is broken into its phases by the marks
 * Pitroom prints with `PITROOM_DEBUG_TIMING` set (src/sys/timing.ts). Each round also times the
 * floor of a write run (_floor.ts: the steps no exactly tracked write run can leave out, nothing of
 * Pitroom's), so what is above it is Pitroom's own. See README.md.
 *
 *   deno task bench:phases [--rounds N] [--warmup N] [--repo DIR] [--json] [--out FILE]
 *                          [--pitroom "CMD ..."] [--compare "CMD ..."]
 *
 * `--compare` times a second pitroom (another checkout that prints the marks) in the same
 * rounds: before and after a change under the same load.
 *
 * The stub worker is an `opencode` first on PATH: a shell script that reads its prompt and
 * prints a three-line OpenCode stream whose answer is "Done" (the real backend parses it, the
 * real sandbox runs it), with the database OpenCode leaves on its first start in place. Every
 * round asks another question, so no answer comes from the cache.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { benchEnv, DEFAULT_SHAPE, ensureRepo } from "../tree/_generate.ts";
import {
  checkFigures,
  childrenCpuMs,
  type Machine,
  machine,
  median,
  NoFigure,
  positive,
} from "../_figures.ts";
import { moduleCacheEnv, pitroomArgv } from "../../tests/support/pitroom.ts";
import { WALK_STATUS_ARGS } from "../../src/vcs/walk_start.ts";

/** A read run at most 3.3x one `git status`, a write run at most 4.2x (issue 25). */
export const TARGETS = { read: 3.3, write: 4.2 } as const;

/**
 * The phases, each ending at a mark (the first at the process's start, the last at its exit):
 * [name, the mark it ends at, what it holds].
 */
export const PHASES = [
  ["spawn", "main", "process start and main.ts's modules, to the command's dispatch"],
  ["record", "created", "the command and the door loaded, settings read, the record created"],
  ["slot", "slot", "the run's lock and a slot"],
  ["before snapshot", "prepared", "the tree's snapshot before the worker (and its read view)"],
  ["cache", "cache-looked", "the answer cache's lookup (its key)"],
  ["sandbox", "spawned", "the worker's environment, first start and sandbox, to its spawn"],
  ["worker", "worker-ended", "the stub worker, spawned to ended"],
  ["after snapshot", "collected", "the changes collected (a read run's undone)"],
  ["check", "checked", "the answer's checks"],
  ["finish", "finished", "receipt, final record, answer kept, streams, history"],
  ["exit", "exit", "the report printed and the process gone"],
] as const;

type Kind = "read" | "write";

/** The JSON document a run leaves in results/. */
export interface PhasesResult {
  schemaVersion: 1;
  date: string;
  command: string;
  pitroom: string[];
  machine: Machine;
  deno: string;
  repo: { files: number; modified: number; untracked: number };
  rounds: number;
  warmup: number;
  targets: typeof TARGETS;
  gitStatusMs: number;
  /**
   * CPU time (user + system, ms) of one `git status`, median; null without `/proc`. A run's is its
   * `cpuMs`: the process and every process it waited for (git, the sandbox, the worker), in clock
   * ticks of 10 ms, so less bent by the machine's load than the wall clock.
   */
  gitStatusCpuMs: number | null;
  runs: Record<Kind, Summary>;
  /**
   * The floor of a write run (_floor.ts): Deno's start, the snapshot's walk, the sandboxed stub and
   * the walk again, nothing of Pitroom's; what is above it is Pitroom's own. No target.
   */
  floor: { totalMs: number; cpuMs: number | null; ratio: number };
  /** The `--compare` pitroom's, in the same rounds. */
  compare?: { pitroom: string[]; runs: Record<Kind, Summary> };
}

/** One kind of run's medians. */
export interface Summary {
  totalMs: number;
  /** CPU time of the run, median (see `PhasesResult.gitStatusCpuMs`). */
  cpuMs: number | null;
  ratio: number;
  met: boolean;
  phases: Record<string, number>;
}

const DEFAULT_OUT = fileURLToPath(new URL("./results/latest.json", import.meta.url));
const FLOOR = fileURLToPath(new URL("./_floor.ts", import.meta.url));

const now = () => performance.timeOrigin + performance.now();

/** The stub `opencode`: reads its prompt, answers "Done" in three stream lines, exits 0. */
async function stubWorker(bin: string): Promise<void> {
  const part = (type: string, extra: string) =>
    `{"type":"${type}","timestamp":1700000000000,"sessionID":"ses_1","part":{"id":"prt_${type}",` +
    `"messageID":"msg_1","sessionID":"ses_1",${extra}}}`;
  const lines = [
    part("step_start", `"type":"step-start"`),
    part("text", `"type":"text","text":"Done","time":{"start":1700000000000,"end":1700000000000}`),
    part(
      "step_finish",
      `"reason":"stop","type":"step-finish","tokens":{"total":120,"input":100,"output":20,` +
        `"reasoning":0,"cache":{"write":0,"read":0}},"cost":0`,
    ),
  ];
  await Deno.mkdir(bin, { recursive: true });
  await Deno.writeTextFile(join(bin, "answer.jsonl"), lines.join("\n") + "\n");
  const script = join(bin, "opencode");
  await Deno.writeTextFile(script, `#!/bin/sh\ncat >/dev/null\ncat '${bin}/answer.jsonl'\n`);
  await Deno.chmod(script, 0o755);
}

/** `measure`'s result with the CPU time of the processes it waited for (null without `/proc`). */
async function withCpu<T extends object>(
  measure: () => Promise<T>,
): Promise<T & { cpuMs: number | null }> {
  const before = await childrenCpuMs();
  const result = await measure();
  const after = await childrenCpuMs();
  return { ...result, cpuMs: before === null || after === null ? null : after - before };
}

/** The median CPU time of `timed`, null when one of them has none. */
function medianCpu(timed: readonly { cpuMs: number | null }[], what: string): number | null {
  const cpu = timed.map((t) => t.cpuMs);
  return cpu.every((ms): ms is number => ms !== null) ? round1(median(cpu, what)) : null;
}

/** `argv` run in `root` with only `env`, from spawn to exit: when, and what it printed. */
async function timed(argv: readonly string[], root: string, env: Record<string, string>) {
  const start = now();
  const out = await new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd: root,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const end = now();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return {
    start,
    end,
    totalMs: end - start,
    success: out.success,
    code: out.code,
    stdout: text(out.stdout),
    stderr: text(out.stderr),
  };
}

/** One `git status --porcelain` of the tree, timed from spawn to exit; checks its line count. */
async function gitStatus(root: string, env: Record<string, string>, lines: number) {
  const out = await timed(["git", "status", "--porcelain"], root, env);
  const totalMs = out.totalMs;
  const listed = out.stdout.split("\n").filter((l) => l !== "").length;
  if (!out.success || listed !== lines) {
    throw new Error(`git status listed ${listed} entries (exit ${out.code}), not ${lines}`);
  }
  return { totalMs };
}

/** One `pitroom run` of `kind`, timed from spawn to exit, broken into its phases. */
async function pitroomRun(
  pitroom: string[],
  kind: Kind,
  round: number,
  root: string,
  env: Record<string, string>,
): Promise<{ totalMs: number; phases: Record<string, number> }> {
  const task = `Answer Done (${kind} round ${round})`;
  const args = [...pitroom.slice(1), "run", "-W", "opencode", ...(kind === "write" ? ["-w"] : [])];
  const out = await timed([pitroom[0]!, ...args, task], root, env);
  const { start, end, stdout, stderr } = out;
  if (!out.success || !/· done ·/.test(stdout) || !/\n {2}Done\n/.test(stdout)) {
    throw new Error(`the ${kind} run failed (exit ${out.code}):\n${stdout}\n${stderr}`);
  }
  const marks = new Map<string, number>();
  for (const m of stderr.matchAll(/^pitroom-timing (\S+) ([\d.]+)$/gm)) {
    marks.set(m[1]!, Number(m[2]));
  }
  marks.set("exit", end);
  const phases: Record<string, number> = {};
  let from = start;
  for (const [name, mark] of PHASES) {
    const at = marks.get(mark);
    if (at === undefined) {
      throw new NoFigure(`the ${kind} run printed no "${mark}" mark:\n${stderr}`);
    }
    phases[name] = at - from;
    from = at;
  }
  return { totalMs: end - start, phases };
}

/** The floor (_floor.ts) under pitroom's runtime, permission set and V8 flags, timed spawn to exit. */
async function floorRun(root: string, stub: string, env: Record<string, string>) {
  // pitroom's own command line, with the floor in place of the program.
  const argv = [...pitroomArgv().slice(0, -1), FLOOR, root, stub, ...WALK_STATUS_ARGS];
  const out = await timed(argv, root, env);
  if (!out.success) throw new Error(`the floor failed (exit ${out.code}): ${out.stderr}`);
  return { totalMs: out.totalMs };
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** The CPU times, where there are any: medians, and each run's against one `git status`'s. */
function cpuLines(r: PhasesResult): string[] {
  const git = r.gitStatusCpuMs;
  if (git === null || git === 0) return [];
  const cell = (s: Summary) => s.cpuMs === null ? "-" : `${s.cpuMs} ms, ${round1(s.cpuMs / git)}x`;
  const c = r.compare;
  return [
    "",
    "CPU time (user + system of the process and those it waited for; ticks of 10 ms), medians:",
    `git status ${git} ms; read run ${cell(r.runs.read)}; write run ${cell(r.runs.write)}; ` +
    `floor ${
      r.floor.cpuMs === null ? "-" : `${r.floor.cpuMs} ms, ${round1(r.floor.cpuMs / git)}x`
    }` +
    (c === undefined ? "" : `; --compare: read ${cell(c.runs.read)}, write ${cell(c.runs.write)}`),
  ];
}

/** The report as a Markdown table. */
export function formatReport(r: PhasesResult): string {
  const load = (l: number[]) => l.join(" ");
  const c = r.compare;
  const other = (k: Kind, name: string) => c === undefined ? "" : ` ${c.runs[k].phases[name]} ms |`;
  const lines = [
    `a run's phases, medians of ${r.rounds} interleaved rounds after ${r.warmup} warm-up; ` +
    `load ${load(r.machine.loadavgBefore)} -> ${load(r.machine.loadavgAfter)}`,
    `repository: ${r.repo.files} files, ${r.repo.modified} modified, ${r.repo.untracked} untracked`,
    "",
    c === undefined
      ? "| phase | read run | write run |"
      : "| phase | read run | write run | read, --compare | write, --compare |",
    c === undefined ? "| --- | --- | --- |" : "| --- | --- | --- | --- | --- |",
    ...PHASES.map(([name]) =>
      `| ${name} | ${r.runs.read.phases[name]} ms | ${r.runs.write.phases[name]} ms |` +
      other("read", name) + other("write", name)
    ),
    `| **whole run** | **${r.runs.read.totalMs} ms** | **${r.runs.write.totalMs} ms** |` +
    (c === undefined ? "" : ` ${c.runs.read.totalMs} ms | ${c.runs.write.totalMs} ms |`),
    "",
    "| case | median | x git status | target |",
    "| --- | --- | --- | --- |",
    `| git status --porcelain | ${r.gitStatusMs} ms | 1 | |`,
    ...(["read", "write"] as const).map((k) =>
      `| pitroom run${k === "write" ? " -w" : ""} | ${r.runs[k].totalMs} ms | ${
        r.runs[k].ratio
      }x | ` +
      `<= ${r.targets[k]}x ${r.runs[k].met ? "met" : "MISSED"} |`
    ),
    `| floor of a write run (_floor.ts: start, walk, sandboxed stub, walk) | ${r.floor.totalMs} ms | ` +
    `${r.floor.ratio}x | none |`,
    ...cpuLines(r),
    ...(c === undefined ? [] : [
      "",
      `--compare: ${c.pitroom.join(" ")}`,
      ...(["read", "write"] as const).map((k) =>
        `| pitroom run${k === "write" ? " -w" : ""}, --compare | ${c.runs[k].totalMs} ms | ` +
        `${c.runs[k].ratio}x | <= ${r.targets[k]}x ${c.runs[k].met ? "met" : "MISSED"} |`
      ),
    ]),
  ];
  return lines.join("\n") + "\n";
}

async function bench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: "string", default: "7" },
      warmup: { type: "string", default: "1" },
      repo: { type: "string" },
      json: { type: "boolean", default: false },
      out: { type: "string", default: DEFAULT_OUT },
      pitroom: { type: "string" },
      compare: { type: "string" },
    },
  });
  const rounds = positive("rounds", values.rounds);
  const warmup = positive("warmup", values.warmup, 0);
  const pitroom = values.pitroom === undefined
    ? pitroomArgv()
    : values.pitroom.split(" ").filter((w) => w !== "");
  const compare = values.compare?.split(" ").filter((w) => w !== "");
  const log = (line: string) => console.error(line);
  const loadavgBefore = Deno.loadavg();
  const scratch = await Deno.makeTempDir({ prefix: "pitroom-bench-phases-" });
  try {
    const home = join(scratch, "home");
    await Deno.mkdir(home);
    const gitEnv = benchEnv(home);
    const root = values.repo === undefined ? join(scratch, "repo") : values.repo;
    const made = await ensureRepo(root, gitEnv, DEFAULT_SHAPE, log);
    const bin = join(scratch, "bin");
    await stubWorker(bin);
    // What OpenCode leaves on its first start (its database): without it every run would start
    // the stub once more first, under a lock (engine/run/first_start.ts), which a user's runs
    // after their first do not.
    const data = join(home, ".local", "share", "opencode");
    await Deno.mkdir(data, { recursive: true });
    await Deno.writeFile(join(data, "opencode.db"), new Uint8Array());
    const env = {
      ...gitEnv,
      PATH: `${bin}:${gitEnv.PATH}`,
      PITROOM_STATE_DIR: join(scratch, "state"),
      PITROOM_DEBUG_TIMING: "1",
      NO_COLOR: "1",
      // The module cache, and no dashboard (none starts in a run this short anyway).
      ...moduleCacheEnv(),
    };
    log(`${rounds} rounds after ${warmup} warm-up, in ${root}`);
    const status: { totalMs: number; cpuMs: number | null }[] = [];
    const floors: { totalMs: number; cpuMs: number | null }[] = [];
    type Timed = { totalMs: number; cpuMs: number | null; phases: Record<string, number> };
    const runs: Record<Kind, Timed[]> = { read: [], write: [] };
    const others: Record<Kind, Timed[]> = { read: [], write: [] };
    for (let i = 0; i < warmup + rounds; i++) {
      const keep = i >= warmup;
      const s = await withCpu(() => gitStatus(root, gitEnv, made.statusLines));
      const run = (argv: string[], kind: Kind) =>
        withCpu(() => pitroomRun(argv, kind, i, root, env));
      const read = await run(pitroom, "read");
      const write = await run(pitroom, "write");
      const otherRead = compare && await run(compare, "read");
      const otherWrite = compare && await run(compare, "write");
      const floor = await withCpu(() => floorRun(root, join(bin, "opencode"), env));
      if (keep) {
        status.push(s);
        floors.push(floor);
        runs.read.push(read);
        runs.write.push(write);
        if (otherRead && otherWrite) {
          others.read.push(otherRead);
          others.write.push(otherWrite);
        }
      }
      log(
        `round ${i + 1}${keep ? "" : " (warm-up)"}: git status ${round1(s.totalMs)} ms, ` +
          `read ${round1(read.totalMs)} ms, write ${round1(write.totalMs)} ms, ` +
          `floor ${round1(floor.totalMs)} ms`,
      );
    }
    const gitStatusMs = round1(median(status.map((s) => s.totalMs), "git status"));
    const summary = (k: Kind, from = runs): Summary => {
      const totalMs = round1(median(from[k].map((r) => r.totalMs), `${k} run`));
      const ratio = Math.round((totalMs / gitStatusMs) * 100) / 100;
      return {
        totalMs,
        cpuMs: medianCpu(from[k], `${k} run's CPU`),
        ratio,
        met: ratio <= TARGETS[k],
        phases: Object.fromEntries(
          PHASES.map(([name]) => [
            name,
            round1(median(from[k].map((r) => r.phases[name]!), `${k} ${name}`)),
          ]),
        ),
      };
    };
    const result: PhasesResult = checkFigures({
      schemaVersion: 1,
      date: new Date().toISOString(),
      command: ["deno task bench:phases", ...argv].join(" "),
      pitroom,
      machine: machine(loadavgBefore),
      deno: Deno.version.deno,
      repo: {
        files: made.shape.files,
        modified: made.shape.modified,
        untracked: made.shape.untracked,
      },
      rounds,
      warmup,
      targets: TARGETS,
      gitStatusMs,
      gitStatusCpuMs: medianCpu(status, "git status's CPU"),
      runs: { read: summary("read"), write: summary("write") },
      floor: (() => {
        const totalMs = round1(median(floors.map((f) => f.totalMs), "floor"));
        return {
          totalMs,
          cpuMs: medianCpu(floors, "floor's CPU"),
          ratio: Math.round((totalMs / gitStatusMs) * 100) / 100,
        };
      })(),
      ...(compare === undefined ? {} : {
        compare: {
          pitroom: compare,
          runs: { read: summary("read", others), write: summary("write", others) },
        },
      }),
    });
    await Deno.mkdir(dirname(values.out), { recursive: true });
    await Deno.writeTextFile(values.out, JSON.stringify(result, null, 2) + "\n");
    console.log(values.json ? JSON.stringify(result, null, 2) : formatReport(result));
    log(`results written to ${values.out}`);
    return result.runs.read.met && result.runs.write.met ? 0 : 1;
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  try {
    Deno.exitCode = await bench(Deno.args);
  } catch (error) {
    console.error(`bench:phases: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exitCode = 2;
  }
}
