/**
 * An engine test's world: a repository the test made (`tempRepo`), a temp state dir, a test Sys
 * working in the repository and a fake backend playing `steps`; disposing removes both folders.
 */
// Runs executed straight through the lifecycle get the features' hooks, as the door's do.
import "../../src/engine/features.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import { fakeBackend, type FakeStep } from "./fake_backend.ts";
import { testSys } from "./sys.ts";
import { type TempDir, tempDir } from "./temp.ts";

/** Makes the world around `repo`, which it takes over (and removes when disposed). */
export async function engineWorld(repo: TempDir, steps: (spec: RunSpec) => FakeStep[]) {
  const state = await tempDir("pitroom-state-");
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  return {
    sys,
    repo,
    backend: fakeBackend(steps),
    paths: statePaths(state.path),
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}
