/**
 * The tree benchmark: on a generated repository of 31,000 committed files with 100 modified and
 * 50 untracked ones, Pitroom's snapshot against `git status --porcelain` and the isolated copy
 * (`makeCopy`) against `git worktree add --detach`, interleaved in one process, as ratios of
 * medians. See README.md.
 *
 *   deno task bench:tree [--rounds N] [--warmup N] [--repo DIR] [--no-copy] [--json] [--out FILE]
 *
 * `--repo DIR` keeps the generated repository in DIR and reuses it when it is there already
 * (generating takes about half a minute); without it a temp dir is made and removed.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  benchEnv,
  DEFAULT_SHAPE,
  ensureRepo,
  type Generated,
  type RepoShape,
} from "./_generate.ts";
import { measureRounds, type RoundSeries } from "./_rounds.ts";
import { formatReport } from "./_report.ts";
import { checkFigures, type Machine, machine, positive } from "../_figures.ts";

/**
 * Snapshot at most 1.5x `git status`; copy at most 1.0x `git worktree add`; a read run at most
 * 1.1x a write run (both around a worker that does nothing); the watch of a write run's tree at
 * most 0.25x a write run; a write run whose worker edits 20 files at most 1.8x one that changes
 * nothing (1.64-1.66x before the watch existed: the fake worker's own processes).
 */
export const TARGETS = {
  snapshot: 1.5,
  copy: 1.0,
  readRun: 1.1,
  editRun: 1.8,
  watch: 0.25,
} as const;

/** One measured side against its baseline. */
export interface Comparison {
  label: string;
  measuredMs: number;
  baseline: string;
  baselineMs: number;
  ratio: number;
  target: number;
  met: boolean;
}

/** The JSON document a run leaves in results/. */
export interface TreeBenchResult {
  schemaVersion: 1;
  date: string;
  command: string;
  machine: Machine;
  git: string;
  deno: string;
  repo: Generated["shape"] & { bytes: number; maxDepth: number; generateMs: number };
  rounds: number;
  warmup: number;
  targets: typeof TARGETS;
  series: RoundSeries;
  comparisons: Comparison[];
}

const DEFAULT_OUT = fileURLToPath(new URL("./results/latest.json", import.meta.url));

function compare(
  label: string,
  measured: number,
  baseline: string,
  baselineMs: number,
  target: number,
): Comparison {
  const ratio = measured / baselineMs;
  return {
    label,
    measuredMs: measured,
    baseline,
    baselineMs,
    ratio: Math.round(ratio * 1000) / 1000,
    target,
    met: ratio <= target,
  };
}

async function gitVersion(env: Record<string, string>): Promise<string> {
  const out = await new Deno.Command("git", { args: ["--version"], env, clearEnv: true }).output();
  return new TextDecoder().decode(out.stdout).trim().replace(/^git version /, "");
}

async function bench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: "string", default: "7" },
      warmup: { type: "string", default: "1" },
      repo: { type: "string" },
      json: { type: "boolean", default: false },
      "no-copy": { type: "boolean", default: false },
      files: { type: "string" },
      dirs: { type: "string" },
      out: { type: "string", default: DEFAULT_OUT },
    },
  });
  const rounds = positive("rounds", values.rounds);
  const warmup = positive("warmup", values.warmup, 0);
  const log = (line: string) => console.error(line);
  const loadavgBefore = Deno.loadavg();
  const scratch = await Deno.makeTempDir({ prefix: "pitroom-bench-tree-" });
  try {
    const home = join(scratch, "home");
    await Deno.mkdir(home);
    const env = benchEnv(home);
    const root = values.repo === undefined ? join(scratch, "repo") : values.repo;
    const shape: RepoShape = {
      ...DEFAULT_SHAPE,
      ...(values.files === undefined ? {} : { files: positive("files", values.files) }),
      ...(values.dirs === undefined ? {} : { dirs: positive("dirs", values.dirs) }),
    };
    const made = await ensureRepo(root, env, shape, log);
    const work = join(scratch, "work");
    await Deno.mkdir(work);
    log(`${rounds} rounds after ${warmup} warm-up`);
    const series = await measureRounds({
      root,
      work,
      env,
      rounds,
      warmup,
      log,
      copies: !values["no-copy"],
      expected: {
        statusLines: made.statusLines,
        snapshotFiles: made.shape.files + made.shape.untracked,
        untrackedFile: made.untrackedFile,
      },
    });
    const status = series.status.medianMs;
    const worktree = series.worktreeAdd.medianMs;
    const result: TreeBenchResult = {
      schemaVersion: 1,
      date: new Date().toISOString(),
      command: ["deno task bench:tree", ...argv].join(" "),
      machine: machine(loadavgBefore),
      git: await gitVersion(env),
      deno: Deno.version.deno,
      repo: { ...made.shape, bytes: made.bytes, maxDepth: made.maxDepth, generateMs: made.ms },
      rounds,
      warmup,
      targets: TARGETS,
      series,
      comparisons: [
        compare(
          "snapshot, new store",
          series.snapshotNewStore.medianMs,
          "git status",
          status,
          TARGETS.snapshot,
        ),
        compare(
          "snapshot, fresh index",
          series.snapshotFresh.medianMs,
          "git status",
          status,
          TARGETS.snapshot,
        ),
        compare(
          "snapshot, repeat",
          series.snapshotRepeat.medianMs,
          "git status",
          status,
          TARGETS.snapshot,
        ),
        compare(
          "read run (do-nothing worker)",
          series.readRun.medianMs,
          "write run",
          series.writeRun.medianMs,
          TARGETS.readRun,
        ),
        compare(
          "write run, 20 files edited (each read and kept by the watch)",
          series.editRun.medianMs,
          "write run",
          series.writeRun.medianMs,
          TARGETS.editRun,
        ),
        compare(
          "the tree's watch alone (start and end)",
          series.watch.medianMs,
          "write run",
          series.writeRun.medianMs,
          TARGETS.watch,
        ),
        ...(values["no-copy"] ? [] : [
          compare(
            "isolated copy (makeCopy)",
            series.copy.medianMs,
            "git worktree add",
            worktree,
            TARGETS.copy,
          ),
        ]),
      ],
    };
    checkFigures(result);
    await Deno.mkdir(dirname(values.out), { recursive: true });
    await Deno.writeTextFile(values.out, JSON.stringify(result, null, 2) + "\n");
    if (values.json) console.log(JSON.stringify(result, null, 2));
    else console.log(formatReport(result));
    log(`results written to ${values.out}`);
    return result.comparisons.every((c) => c.met) ? 0 : 1;
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

if (import.meta.main) {
  try {
    Deno.exitCode = await bench(Deno.args);
  } catch (error) {
    console.error(`bench:tree: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exitCode = 2;
  }
}
