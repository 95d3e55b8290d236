/**
 * Run overhead of one worker: the bare CLI against `pitroom run` on the same trivial scenario
 * (one answer, fixed usage), interleaved in one process with the scripted model server.
 *
 * The bare side is the launch the backend itself describes (`backend.launch(spec)`: the same
 * argv, env, profile files, and Pitroom's full prompt on stdin), spawned directly. So the
 * difference is exactly what Pitroom adds around the CLI: deno start-up, the record, snapshots,
 * the events files, the report.
 */
import { join } from "node:path";
import { scrubEnv } from "../../src/engine/env.ts";
import { buildPrompt } from "../../src/engine/prompt.ts";
import { realRunner } from "../../src/sys/real.ts";
import { BACKENDS } from "../../src/workers/registry.ts";
import type { RunSpec, WorkerName } from "../../src/workers/types.ts";
import { startModelServer } from "../../tests/support/model_server/fixture.ts";
import { tempDir, tempRepo } from "../../tests/support/temp.ts";
import { checked, interleave, round1, type Series, series, timeProcess } from "./_measure.ts";

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
};

/** The run target: at most 5% slower, or at most 150 ms more. */
export const RUN_TARGET = { ratio: 1.05, diffMs: 150 } as const;

/** The figures of one worker. */
export interface WorkerResult {
  worker: WorkerName;
  cliVersion: string;
  model: string;
  bare: Series;
  pitroom: Series;
  /** `pitroom --version`, measured in the same rounds, as the fixed cost of starting pitroom. */
  pitroomVersion: Series;
  ratio: number;
  diffMs: number;
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
  const pitroomEnv = {
    ...callerEnv,
    PITROOM_STATE_DIR: join(scratch.path, "state"),
    PITROOM_CONFIG: join(scratch.path, "config.json"),
  };
  await Deno.writeTextFile(pitroomEnv.PITROOM_CONFIG, "{}\n");
  let bareRun = 0;

  const bare = async () => {
    const privateDir = join(scratch.path, "bare", String(bareRun++));
    const spec: RunSpec = {
      mode: "read",
      prompt: buildPrompt(TASK, "read"),
      cwd: repo.path,
      privateDir,
      model,
      web: false,
      baseEnv: scrubEnv(callerEnv, { worker }),
    };
    const launch = backend.launch(spec);
    await Deno.mkdir(privateDir, { recursive: true });
    for (const file of launch.files) {
      await Deno.mkdir(join(file.path, ".."), { recursive: true });
      await Deno.writeTextFile(file.path, file.content, { mode: file.mode ?? 0o600 });
    }
    const inv = { argv: launch.argv, env: launch.env, cwd: launch.cwd };
    const result = await timeProcess(launch.stdin === null ? inv : { ...inv, stdin: launch.stdin });
    return checked(`bare ${worker}`, result, ANSWER);
  };
  const pitroom = async () =>
    checked(
      `pitroom run -W ${worker}`,
      await timeProcess({
        argv: [...options.pitroom, "run", "-W", worker, "-m", model, TASK],
        env: pitroomEnv,
        cwd: repo.path,
      }),
      ANSWER,
    );
  const version = async () =>
    checked(
      "pitroom --version",
      await timeProcess({
        argv: [...options.pitroom, "--version"],
        env: pitroomEnv,
        cwd: repo.path,
      }),
      "pitroom",
    );

  const samples = await interleave({ bare, pitroom, version }, {
    rounds: options.rounds,
    warmup: options.warmup,
    onRound: (n) => options.log(`  ${worker}: round ${n}/${options.rounds}`),
  });
  const b = series(samples.bare);
  const p = series(samples.pitroom);
  const ratio = Math.round((p.medianMs / b.medianMs) * 1000) / 1000;
  const diffMs = round1(p.medianMs - b.medianMs);
  return {
    worker,
    cliVersion,
    model,
    bare: b,
    pitroom: p,
    pitroomVersion: series(samples.version),
    ratio,
    diffMs,
    meetsTarget: ratio <= RUN_TARGET.ratio || diffMs <= RUN_TARGET.diffMs,
  };
}
