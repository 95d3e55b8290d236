/**
 * An engine test's world: a repository the test made (`tempRepo`), a temp state dir, a test Sys
 * working in the repository, a fake backend playing `steps` and the engine over them (its front
 * door, `createEngine`, standing in the repository); disposing removes both folders.
 */
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { Clock } from "../../src/sys/mod.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import { fakeBackend, type FakeStep } from "./fake_backend.ts";
import { testSys } from "./sys.ts";
import { type TempDir, tempDir } from "./temp.ts";

/** Options of `engineWorld`. */
export interface EngineWorldOptions {
  /** Written as the config file (`maxParallel`, `sandbox`, ...) before the engine reads it. */
  config?: Record<string, unknown>;
  clock?: Clock;
  env?: Record<string, string>;
}

/** Makes the world around `repo`, which it takes over (and removes when disposed). */
export async function engineWorld(
  repo: TempDir,
  steps: (spec: RunSpec) => FakeStep[],
  options: EngineWorldOptions = {},
) {
  const state = await tempDir("pitroom-state-");
  const env = { ...options.env };
  if (options.config !== undefined) {
    env.PITROOM_CONFIG = join(state.path, "config.json");
    await Deno.writeTextFile(env.PITROOM_CONFIG, JSON.stringify(options.config));
  }
  const sys = testSys({
    stateDir: state.path,
    cwd: repo.path,
    env,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const backend = fakeBackend(steps);
  return {
    sys,
    repo,
    backend,
    engine: createEngine(sys, { backends: () => backend, dir: repo.path }),
    paths: statePaths(state.path),
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}
