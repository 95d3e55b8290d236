/**
 * Shared setup of the setup-command tests: a temp home with a config file and a state dir, the
 * real backends (whatever the registry holds today), and run records for usage.
 */
import { join } from "node:path";
import { resolveSettings, type Settings } from "../../src/engine/core/settings.ts";
import type { Config } from "../../src/store/config.ts";
import { statePaths } from "../../src/store/paths.ts";
import { emptyProgress, RECORD_SCHEMA, type RunRecord } from "../../src/store/record.ts";
import { writeRecord } from "../../src/store/runs.ts";
import { BACKENDS } from "../../src/workers/registry.ts";
import type { Backend, WorkerName } from "../../src/workers/types.ts";
import { WORKER_BIN } from "../support/model_server/env_file.ts";
import { tempDir } from "../support/temp.ts";

/** The registry's real backends, as a copy a test may leave one out of. */
export const REAL_BACKENDS: Record<WorkerName, Backend | undefined> = { ...BACKENDS };

/** A PATH with the pinned worker CLIs first. */
export const WORKERS_PATH = `${WORKER_BIN}:/usr/local/bin:/usr/bin:/bin`;
/** A PATH without any worker CLI. */
export const BARE_PATH = "/usr/local/bin:/usr/bin:/bin";

/** A temp home: HOME, a config path, a state dir. */
export interface Home extends AsyncDisposable {
  root: string;
  configPath: string;
  stateDir: string;
  /** The env a command of this home runs with. */
  env(extra?: Record<string, string>): Record<string, string>;
  writeConfig(config: unknown): Promise<void>;
}

/** Makes a temp home (the config file is not written until `writeConfig`). */
export async function tempHome(): Promise<Home> {
  const dir = await tempDir("pitroom-home-");
  const root = await Deno.realPath(dir.path);
  const configPath = join(root, "config", "pitroom", "config.json");
  const stateDir = join(root, "state");
  return {
    root,
    configPath,
    stateDir,
    env: (extra = {}) => ({
      HOME: root,
      PATH: WORKERS_PATH,
      PITROOM_CONFIG: configPath,
      PITROOM_STATE_DIR: stateDir,
      ...extra,
    }),
    async writeConfig(config) {
      await Deno.mkdir(join(root, "config", "pitroom"), { recursive: true });
      await Deno.writeTextFile(configPath, JSON.stringify(config));
    },
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

/** Effective settings of a config, without env or flags. */
export function settingsOf(config: Config): Settings {
  return resolveSettings({
    config,
    env: { get: () => undefined },
    configPath: "/cfg",
    stateDir: "/state",
  }).settings;
}

/** A finished run record with the given attempts and tokens. */
export function finishedRun(
  id: string,
  attempts: RunRecord["attempts"],
  tokens: { input: number; output: number; cached?: number },
): RunRecord {
  return {
    schemaVersion: RECORD_SCHEMA,
    id,
    state: "done",
    mode: "read",
    task: "t",
    cwd: "/repo",
    chain: attempts.map((a) => ({ worker: a.worker, ...(a.model ? { model: a.model } : {}) })),
    web: false,
    timeoutMs: 60_000,
    createdAt: attempts[0]?.startedAt ?? 0,
    attempts,
    progress: {
      ...emptyProgress(),
      tokens: {
        input: tokens.input,
        output: tokens.output,
        cached: tokens.cached ?? 0,
        reasoning: 0,
      },
    },
    outcome: "ok",
    exit: 0,
  };
}

/** Writes run records into a state dir. */
export async function writeRuns(stateDir: string, records: RunRecord[]): Promise<void> {
  const paths = statePaths(stateDir);
  for (const record of records) {
    await Deno.mkdir(paths.run(record.id).dir, { recursive: true });
    await writeRecord(paths, record);
  }
}
