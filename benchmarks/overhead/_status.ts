/**
 * Start-up of `pitroom status` and `pitroom ls` with a large history: a state dir filled with
 * finished run records (written through src/store, as a supervisor writes them), timed against
 * `pitroom --version` and against `status` on an empty state dir, interleaved.
 */
import { join } from "node:path";
import { statePaths } from "../../src/store/paths.ts";
import { RECORD_SCHEMA, type RunRecord } from "../../src/store/record.ts";
import { createRunDir, writeRecord } from "../../src/store/runs.ts";
import { markRecent, RECENT_KEEP } from "../../src/store/active.ts";
import { moduleCacheEnv } from "../../tests/support/pitroom.ts";
import { tempDir } from "../../tests/support/temp.ts";
import { checked, interleave, round1, type Series, series, timeProcess } from "./_measure.ts";

/** The status target: under 100 ms. */
export const STATUS_TARGET_MS = 100;

/** The figures of the status benchmark. */
export interface StatusResult {
  records: number;
  /** How long writing the records took (setup, not measured against anything). */
  fillMs: number;
  pitroomVersion: Series;
  statusEmpty: Series;
  /** `status` with only the records it shows (10): the cost without listing the history. */
  statusTen: Series;
  status: Series;
  ls: Series;
  statusRatio: number;
  lsRatio: number;
  /** `status` minus `--version`: what Pitroom's own code costs on top of start-up. */
  statusOwnMs: number;
  lsOwnMs: number;
  meetsTarget: boolean;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/** A run id (`YYYYMMDD-HHMMSS-xxxx`) for a local time and a suffix. */
function runId(time: number, suffix: number): string {
  const d = new Date(time);
  const date = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}`;
  const clock = `${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
  return `${date}-${clock}-${suffix.toString(16).padStart(4, "0")}`;
}

/** A finished read run as the supervisor leaves it, created at `time`. */
function finishedRecord(id: string, time: number, repo: string): RunRecord {
  return {
    schemaVersion: RECORD_SCHEMA,
    id,
    state: "done",
    mode: "read",
    task: "Where is the request handler registered, and which middleware runs before it?",
    cwd: repo,
    repoRoot: repo,
    chain: [{ worker: "opencode", model: "opencode/big-pickle" }, { worker: "codex" }],
    web: false,
    timeoutMs: 1_800_000,
    createdAt: time,
    startedAt: time + 40,
    endedAt: time + 41_250,
    supervisorPid: 41_213,
    supervised: true,
    attempts: [{
      worker: "opencode",
      model: "opencode/big-pickle",
      startedAt: time + 90,
      endedAt: time + 41_200,
      outcome: "ok",
      sessionId: "ses_3f2a9c81d2ffe0Qm7rT1bXkP4n",
      workerPid: 41_220,
    }],
    progress: {
      steps: 6,
      tools: 9,
      last: "read src/server/routes.ts",
      tokens: { input: 18_430, output: 912, cached: 61_200, reasoning: 240 },
      cost: 0,
    },
    outcome: "ok",
    exit: 0,
    answer: "The handler is registered in src/server/routes.ts:42 (`app.post('/api/runs', ...)`)." +
      " Before it run the logger (src/server/app.ts:18), the origin check " +
      "(src/server/guard.ts:27) and the body size limit (src/server/app.ts:21), in that order.",
  };
}

/**
 * Makes `dir` a git repository, as the runs' folder is: status and ls list the runs of the
 * current repository, and a run that knows its repository belongs to no plain folder.
 */
export async function gitInit(dir: string): Promise<string> {
  const git = await new Deno.Command("git", { args: ["init", "-q", dir], stderr: "piped" })
    .output();
  if (!git.success) throw new Error(`git init ${dir}: ${new TextDecoder().decode(git.stderr)}`);
  return await Deno.realPath(dir);
}

/** Writes `count` finished records into `stateDir`, one a minute apart, the last one now. */
export async function fillStateDir(stateDir: string, count: number, repo: string): Promise<void> {
  const paths = statePaths(stateDir);
  const start = Date.now() - count * 60_000;
  const batch = 64;
  for (let i = 0; i < count; i += batch) {
    const writes: Promise<void>[] = [];
    for (let j = i; j < Math.min(count, i + batch); j++) {
      const time = start + j * 60_000;
      const id = runId(time, j % 0x10000);
      writes.push(
        createRunDir(paths, id).then(() => writeRecord(paths, finishedRecord(id, time, repo))),
      );
    }
    await Promise.all(writes);
  }
  // As createRun does: the newest runs are remembered in recent/ (trimmed as it goes).
  const ids = [];
  for (let j = Math.max(0, count - RECENT_KEEP); j < count; j++) {
    ids.push(runId(start + j * 60_000, j % 0x10000));
  }
  for (const id of ids) await markRecent(paths, id);
}

/** Fills a state dir with `records` runs and times status, ls and `--version`. */
export async function benchStatus(
  options: {
    records: number;
    rounds: number;
    warmup: number;
    /** The argv that starts pitroom. */
    pitroom: string[];
    log: (line: string) => void;
  },
): Promise<StatusResult> {
  await using scratch = await tempDir("pitroom-bench-status-");
  const full = join(scratch.path, "full");
  const empty = join(scratch.path, "empty");
  const ten = join(scratch.path, "ten");
  const config = join(scratch.path, "config.json");
  await Deno.writeTextFile(config, "{}\n");
  await Deno.mkdir(empty);
  const repo = await gitInit(scratch.path);
  await fillStateDir(ten, 10, repo);
  const fillStart = performance.now();
  await fillStateDir(full, options.records, repo);
  const fillMs = round1(performance.now() - fillStart);
  options.log(`  status: wrote ${options.records} records in ${Math.round(fillMs)} ms`);

  const env = (stateDir: string) => ({
    NO_COLOR: "1",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: scratch.path,
    PITROOM_STATE_DIR: stateDir,
    PITROOM_CONFIG: config,
    ...moduleCacheEnv(),
  });
  const time = (args: string[], stateDir: string, expect: string) => async () =>
    checked(
      `pitroom ${args.join(" ")}`,
      await timeProcess({
        argv: [...options.pitroom, ...args],
        env: env(stateDir),
        cwd: scratch.path,
      }),
      expect,
    );
  const samples = await interleave({
    version: time(["--version"], full, "pitroom"),
    statusEmpty: time(["status"], empty, ""),
    statusTen: time(["status"], ten, "done"),
    status: time(["status"], full, "done"),
    ls: time(["ls"], full, "done"),
  }, { rounds: options.rounds, warmup: options.warmup });

  const version = series(samples.version);
  const status = series(samples.status);
  const ls = series(samples.ls);
  const ratio = (s: Series) => Math.round((s.medianMs / version.medianMs) * 1000) / 1000;
  return {
    records: options.records,
    fillMs,
    pitroomVersion: version,
    statusEmpty: series(samples.statusEmpty),
    statusTen: series(samples.statusTen),
    status,
    ls,
    statusRatio: ratio(status),
    lsRatio: ratio(ls),
    statusOwnMs: round1(status.medianMs - version.medianMs),
    lsOwnMs: round1(ls.medianMs - version.medianMs),
    meetsTarget: status.medianMs < STATUS_TARGET_MS,
  };
}
