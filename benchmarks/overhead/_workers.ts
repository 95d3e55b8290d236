/**
 * Run overhead of one worker: the bare CLI against `pitroom run` on the same trivial scenario
 * (one answer, fixed usage), interleaved in one process with the scripted model server.
 *
 * The bare side is the launch the backend itself describes (`backend.launch(spec)`: the same
 * argv, profile files, and Pitroom's full prompt on stdin), with the environment Pitroom's own
 * `workerEnv()` makes of the caller's (scrubbed, the provider's `env_key` names kept, the guard
 * first on PATH), spawned directly. So the difference is exactly what Pitroom adds around the
 * CLI: deno start-up, the record, snapshots, the events files, the report. Every run is checked
 * against the model server's request log: both sides must make the same requests (scenario,
 * turns, tools offered, prompt), or the benchmark stops.
 */
import { join } from "node:path";
import { workerEnv } from "../../src/confine/env.ts";
import { buildPrompt } from "../../src/engine/run/prompt.ts";
import { holdState } from "../../src/store/state.ts";
import { realRunner, realSys } from "../../src/sys/real.ts";
import { BACKENDS } from "../../src/workers/registry.ts";
import type { RunSpec, WorkerName } from "../../src/workers/types.ts";
import { type LogEntry, startModelServer } from "../../tests/support/model_server/fixture.ts";
import { moduleCacheEnv } from "../../tests/support/pitroom.ts";
import { tempDir, tempRepo } from "../../tests/support/temp.ts";
import {
  checked,
  interleave,
  ownPart,
  round1,
  type Series,
  series,
  timeProcess,
} from "./_measure.ts";

/** The scenario every worker plays: one answer, fixed usage. */
const SCENARIO = { turns: [{ answer: "The answer is 42.", usage: { input: 1200, output: 8 } }] };
const ANSWER = "The answer is 42.";
const TASK = "What is the answer?";

/** The model id each CLI is given (the scenario is its last `/` part). */
const MODELS: Record<WorkerName, string> = {
  opencode: "fake/trivial",
  codex: "fake/trivial",
  claude: "trivial",
  gemini: "trivial",
  qwen: "trivial",
  kilo: "fake/trivial",
  copilot: "trivial",
  crush: "fake/trivial",
};

/** The run target: at most 5% slower, or at most 150 ms more. */
export const RUN_TARGET = { ratio: 1.05, diffMs: 150 } as const;

/** Pitroom's own time around the worker: before its spawn, after its end, and both. */
export interface OwnPart {
  before: Series;
  after: Series;
  total: Series;
}

function ownSeries(
  parts: readonly ({ beforeMs: number; afterMs: number } | null)[],
): OwnPart | null {
  if (parts.length === 0 || parts.some((part) => part === null)) return null;
  const all = parts as { beforeMs: number; afterMs: number }[];
  return {
    before: series(all.map((p) => p.beforeMs)),
    after: series(all.map((p) => p.afterMs)),
    total: series(all.map((p) => p.beforeMs + p.afterMs)),
  };
}

/** The figures of one worker. */
export interface WorkerResult {
  worker: WorkerName;
  cliVersion: string;
  model: string;
  bare: Series;
  pitroom: Series;
  /** `pitroom --version`, measured in the same rounds, as the fixed cost of starting pitroom. */
  pitroomVersion: Series;
  /**
   * Pitroom's own part of each run, from its timing marks: before the worker's spawn and after
   * its end (the worker's own time left out). Null when the pitroom printed no marks.
   */
  own: OwnPart | null;
  /** With `--compare`: the other pitroom's run in the same rounds, and its difference to bare. */
  compare?: { run: Series; diffMs: number; ratio: number; own: OwnPart | null };
  ratio: number;
  diffMs: number;
  /**
   * Runs (by side) after which gemini's `~/.gemini/projects.json.lock` was left behind; each was
   * removed before the next run, which would otherwise wait ~10 s for it to go stale.
   */
  staleLocks: { bare: number; pitroom: number };
  meetsTarget: boolean;
}

/** Workers whose CLI is installed for the scripted model server, with their versions. */
export async function installedWorkers(): Promise<Map<WorkerName, string>> {
  await using server = await startModelServer({ scenarios: { trivial: SCENARIO } });
  const found = new Map<WorkerName, string>();
  for (const [name, backend] of Object.entries(BACKENDS)) {
    const installed = await backend?.detect(realRunner, server.env);
    if (installed) found.set(name as WorkerName, installed.version);
  }
  return found;
}

/** Measures one worker: `rounds` interleaved bare / pitroom / `pitroom --version` runs. */
export async function benchWorker(
  worker: WorkerName,
  cliVersion: string,
  options: {
    rounds: number;
    warmup: number;
    /** The argv that starts pitroom. */
    pitroom: string[];
    /** The argv of a second pitroom (another checkout) timed in the same rounds. */
    compare?: string[];
    log: (line: string) => void;
  },
): Promise<WorkerResult> {
  const backend = BACKENDS[worker];
  if (backend === undefined) throw new Error(`no backend "${worker}"`);
  await using server = await startModelServer({ scenarios: { trivial: SCENARIO } });
  await using repo = await tempRepo({ "src/app.ts": "export const answer = 42;\n" });
  await using scratch = await tempDir("pitroom-bench-");
  const model = MODELS[worker];
  // What pitroom's own process gets (tests/support/pitroom.ts adds NO_COLOR the same way).
  const callerEnv = { NO_COLOR: "1", ...server.env };
  const pitroomEnv: Record<string, string> & { PITROOM_STATE_DIR: string; PITROOM_CONFIG: string } =
    {
      ...callerEnv,
      PITROOM_STATE_DIR: join(scratch.path, "state"),
      PITROOM_CONFIG: join(scratch.path, "config.json"),
    };
  await Deno.writeTextFile(pitroomEnv.PITROOM_CONFIG, "{}\n");
  let bareRun = 0;
  // Pitroom's own view of the caller, so the bare side starts from what `pitroom run` gives it.
  const sys = holdState({
    ...realSys(),
    env: { get: (name) => pitroomEnv[name], toObject: () => ({ ...pitroomEnv }) },
    stateDir: pitroomEnv.PITROOM_STATE_DIR,
    configPath: pitroomEnv.PITROOM_CONFIG,
  });
  const requests = sameRequests(server.requests);
  const staleLocks = { bare: 0, pitroom: 0 };
  // gemini 0.61.0 now and then exits holding its project-registry lock (a directory); the next
  // gemini start then waits for it to go stale (~10-13 s), whichever side runs next. Runs are
  // sequential, so no gemini is alive here: the lock is removed and counted for the side.
  const clearStaleLock = async (side: "bare" | "pitroom") => {
    const lock = join(server.home, ".gemini", "projects.json.lock");
    try {
      await Deno.remove(lock, { recursive: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    staleLocks[side]++;
    options.log(`  ${worker}: the ${side} run left gemini's projects.json.lock (removed)`);
  };

  const bare = async () => {
    const run = bareRun++;
    const privateDir = join(scratch.path, "bare", String(run));
    const { baseEnv, pathPrefix } = await workerEnv(sys, { worker, runId: `bench-bare-${run}` });
    const spec: RunSpec = {
      mode: "read",
      prompt: buildPrompt(TASK, "read"),
      cwd: repo.path,
      privateDir,
      model,
      web: false,
      baseEnv,
      pathPrefix,
    };
    const launch = backend.launch(spec);
    await Deno.mkdir(privateDir, { recursive: true });
    for (const file of launch.files) {
      await Deno.mkdir(join(file.path, ".."), { recursive: true });
      await Deno.writeTextFile(file.path, file.content, { mode: file.mode ?? 0o600 });
    }
    const inv = { argv: launch.argv, env: launch.env, cwd: launch.cwd };
    const result = await timeProcess(launch.stdin === null ? inv : { ...inv, stdin: launch.stdin });
    const ms = checked(`bare ${worker}`, result, ANSWER);
    await requests.check("bare");
    await clearStaleLock("bare");
    return ms;
  };
  // Pitroom's own part of each recorded run, by side (its marks on stderr; the warm-up's dropped).
  const owns: Record<string, ({ beforeMs: number; afterMs: number } | null)[]> = {
    pitroom: [],
    compare: [],
  };
  let recording = false;
  const runWith = (argv: string[], side: "pitroom" | "compare") => async () => {
    const result = await timeProcess({
      argv: [...argv, "run", "-W", worker, "-m", model, TASK],
      // Deno finds its module cache (the npm packages) as the caller does; the timing marks
      // (a line on stderr per phase) say where the worker's own time begins and ends.
      env: { ...pitroomEnv, ...moduleCacheEnv(), PITROOM_DEBUG_TIMING: "1" },
      cwd: repo.path,
    });
    const ms = checked(`pitroom run -W ${worker}`, result, ANSWER);
    if (recording) owns[side]!.push(ownPart(result));
    await requests.check("pitroom");
    await clearStaleLock("pitroom");
    return ms;
  };
  const pitroom = runWith(options.pitroom, "pitroom");
  const version = async () =>
    checked(
      "pitroom --version",
      await timeProcess({
        argv: [...options.pitroom, "--version"],
        // Deno finds its module cache (the npm packages) as the caller does.
        env: { ...pitroomEnv, ...moduleCacheEnv() },
        cwd: repo.path,
      }),
      "pitroom",
    );

  const sides = options.compare === undefined
    ? { bare, pitroom, version }
    : { bare, pitroom, version, compare: runWith(options.compare, "compare") };
  const samples: Record<string, number[]> = await interleave<string>(sides, {
    rounds: options.rounds,
    warmup: options.warmup,
    onRound: (n) => options.log(`  ${worker}: round ${n}/${options.rounds}`),
    onWarm: () => recording = true,
  });
  const b = series(samples.bare!);
  const p = series(samples.pitroom!);
  const other = samples.compare === undefined ? undefined : series(samples.compare);
  const ratio = Math.round((p.medianMs / b.medianMs) * 1000) / 1000;
  const diffMs = round1(p.medianMs - b.medianMs);
  return {
    worker,
    cliVersion,
    model,
    bare: b,
    pitroom: p,
    pitroomVersion: series(samples.version!),
    own: ownSeries(owns.pitroom!),
    ...(other === undefined ? {} : {
      compare: {
        run: other,
        own: ownSeries(owns.compare!),
        diffMs: round1(other.medianMs - b.medianMs),
        ratio: Math.round((other.medianMs / b.medianMs) * 1000) / 1000,
      },
    }),
    ratio,
    diffMs,
    meetsTarget: ratio <= RUN_TARGET.ratio || diffMs <= RUN_TARGET.diffMs,
    staleLocks,
  };
}

/**
 * What identifies a request to the model server, for comparing the two sides. The clock lines
 * CLIs add to the prompt (kilo's `Message time: ...`, copilot's `<current_datetime>`) differ by
 * nature and are left out.
 */
function requestKey(entry: LogEntry): string {
  const { dialect, model, scenario, turn, followup, tools, status, played } = entry;
  const user = entry.user.replace(/^Message time: .*$/gm, "")
    .replace(/<current_datetime>[^<]*<\/current_datetime>/g, "");
  return JSON.stringify({ dialect, model, scenario, turn, followup, tools, user, status, played });
}

/**
 * Checks that every run makes the same requests of the model server as the first one did: the
 * same scenario and turns, the same tools offered, the same prompt. A side that plays another
 * scenario (or fails over to a title call, a retry) stops the benchmark with both request lists.
 */
export function sameRequests(all: () => Promise<LogEntry[]>) {
  let seen = 0;
  let first: { side: string; keys: string[] } | null = null;
  return {
    async check(side: string): Promise<void> {
      const entries = await all();
      const keys = entries.slice(seen).filter((e) => e.played !== "untooled").map(requestKey);
      seen = entries.length;
      if (first === null) {
        first = { side, keys };
        return;
      }
      if (JSON.stringify(keys) !== JSON.stringify(first.keys)) {
        throw new Error(
          `The ${side} run made other model requests than the ${first.side} run: the two sides ` +
            `do not run the same scenario\n${first.side}:\n  ${first.keys.join("\n  ")}\n` +
            `${side}:\n  ${keys.join("\n  ")}`,
        );
      }
    },
  };
}
