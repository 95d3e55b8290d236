/**
 * A Pitroom engine process for crash tests: runs one run (or applies or reverts one) with the
 * fake worker, stopping at a phase through `PITROOM_TEST_PAUSE` so the test can kill it there
 * with SIGKILL. Usage: `deno run -P=pitroom crash_child.ts '<json>'` with the fields of `ChildJob`.
 */
import { createRun } from "../../src/engine/create.ts";
import { executeRun } from "../../src/engine/lifecycle.ts";
import { applyRun, discardRun } from "../../src/engine/apply.ts";
import { createEngine } from "../../src/engine/api.ts";
import type { Mode } from "../../src/workers/types.ts";
import { fakeBackend, type FakeStep } from "./fake_backend.ts";
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
}

const job = JSON.parse(Deno.args[0]!) as ChildJob;
const sys = testSys({
  stateDir: job.stateDir,
  cwd: job.repo,
  env: job.pause ? { PITROOM_TEST_PAUSE: job.pause } : {},
});
if (job.action === "run") {
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
  await applyRun(sys, job.runId!, { allowDelete: true });
} else if (job.action === "discard") {
  await discardRun(sys, job.runId!);
} else if (job.action === "applyGroup") {
  const result = await createEngine(sys).applyGroup(job.group!, { allowDelete: true });
  if (result.failed) throw result.failed.error;
} else {
  // Through the engine's front door: a run whose run.json is damaged is reverted from its patch.
  await createEngine(sys).revert(job.runId!, { all: job.all ?? false, force: job.force ?? false });
}
