/**
 * A Pitroom engine process for crash tests: runs one run (or applies or reverts one) with the
 * fake worker, stopping at a phase through `PITROOM_TEST_PAUSE` so the test can kill it there
 * with SIGKILL. Usage: `deno run -P=pitroom crash_child.ts '<json>'` with the fields of `ChildJob`.
 * Every action goes through the engine's front door (`createEngine`), as the CLI's do.
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
}

const job = JSON.parse(Deno.args[0]!) as ChildJob;
const sys = testSys({
  stateDir: job.stateDir,
  cwd: job.repo,
  env: job.pause ? { PITROOM_TEST_PAUSE: job.pause } : {},
});
const { createEngine } = await import("../../src/engine/mod.ts");
if (job.action === "run") {
  const { fakeBackend } = await import("./fake_backend.ts");
  const backend = fakeBackend(() => job.steps ?? []);
  const engine = createEngine(sys, { backends: () => backend, dir: job.repo });
  let told = false;
  const final = await engine.run({
    task: "crash test",
    mode: job.mode ?? "write",
    worker: "opencode",
    timeoutMs: 60_000,
  }, {
    onEvent: (ev) => {
      if (told || !("run" in ev)) return;
      told = true;
      console.log(JSON.stringify({ id: ev.run }));
    },
  });
  console.log(JSON.stringify({ state: final.state }));
} else {
  const engine = createEngine(sys, { dir: job.repo });
  if (job.action === "apply") await engine.apply(job.runId!, { allowDelete: true });
  else if (job.action === "discard") await engine.discard(job.runId!);
  else if (job.action === "applyGroup") {
    const result = await engine.applyGroup(job.group!, { allowDelete: true });
    if (result.failed) throw result.failed.error;
  } else {
    await engine.revert(job.runId!, { all: job.all ?? false, force: job.force ?? false });
  }
}
