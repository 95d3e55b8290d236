/**
 * A Pitroom engine process for crash tests: runs one run (or applies or reverts one) with the
 * fake worker, stopping at a phase through `PITROOM_TEST_PAUSE` so the test can kill it there
 * with SIGKILL. Usage: `deno run -P=pitroom crash_child.ts '<json>'` with the fields of `ChildJob`.
 * Each action loads only the modules it needs: the crash tests start one child per kill.
 */
import type { Mode } from "../../src/workers/types.ts";
import type { FakeStep } from "./fake_backend.ts";
import { testSys } from "./sys.ts";

/** What the child does. */
export interface ChildJob {
  stateDir: string;
  repo: string;
  /** The phase to stop at (none: run to the end). */
  pause?: string;
  action: "run" | "apply" | "revert" | "discard" | "applyGroup";
  mode?: Mode;
  steps?: FakeStep[];
  runId?: string;
  /** Revert with `all` (the files no tool call of the worker made too). */
  all?: boolean;
  /** Revert with `force` (HEAD or the index moved during the run). */
  force?: boolean;
  /** The group `applyGroup` applies. */
  group?: string;
  /** Revert through the engine's front door (`createEngine`), as the CLI does. */
  frontDoor?: boolean;
}

const job = JSON.parse(Deno.args[0]!) as ChildJob;
const sys = testSys({
  stateDir: job.stateDir,
  cwd: job.repo,
  env: job.pause ? { PITROOM_TEST_PAUSE: job.pause } : {},
});
if (job.action === "run") {
  const { createRun } = await import("../../src/engine/request/create.ts");
  const { executeRun } = await import("../../src/engine/run/lifecycle.ts");
  const { fakeBackend } = await import("./fake_backend.ts");
  const record = await createRun(sys, {
    task: "crash test",
    mode: job.mode ?? "write",
    cwd: job.repo,
    chain: [{ worker: "opencode" }],
    timeoutMs: 60_000,
  });
  console.log(JSON.stringify({ id: record.id }));
  const backend = fakeBackend(() => job.steps ?? []);
  const final = await executeRun(sys, record.id, { maxParallel: 20, backends: () => backend });
  console.log(JSON.stringify({ state: final.state }));
} else if (job.action === "apply") {
  const { applyRun } = await import("../../src/engine/runs/apply.ts");
  await applyRun(sys, job.runId!, { allowDelete: true });
} else if (job.action === "discard") {
  const { discardRun } = await import("../../src/engine/runs/apply.ts");
  await discardRun(sys, job.runId!);
} else if (job.action === "applyGroup") {
  const { createEngine } = await import("../../src/engine/api.ts");
  const result = await createEngine(sys).applyGroup(job.group!, { allowDelete: true });
  if (result.failed) throw result.failed.error;
} else if (job.frontDoor) {
  // Through the engine's front door: a run whose run.json is damaged is reverted from its patch.
  const { createEngine } = await import("../../src/engine/api.ts");
  await createEngine(sys).revert(job.runId!, { all: job.all ?? false, force: job.force ?? false });
} else {
  const { revertRun } = await import("../../src/engine/runs/revert.ts");
  await revertRun(sys, job.runId!, { all: job.all ?? false, force: job.force ?? false });
}
