/**
 * Drives one backend's real CLI through the engine's process shell, without the rest of the
 * engine: launch description -> spawn -> parse every line -> classify. Backend end-to-end tests
 * use it with the scripted model server's worker env.
 */
import { holdState } from "../../src/store/state.ts";
import type { WorkerEvent } from "../../src/events/mod.ts";
import { runProcess } from "../../src/engine/run/process.ts";
import { realSys } from "../../src/sys/real.ts";
import type { Backend, Outcome, ProcessEnd, RunSpec } from "../../src/workers/types.ts";

/** What a driven attempt produced. */
export interface Driven {
  events: WorkerEvent[];
  outcome: Outcome;
  end: ProcessEnd;
  stdout: string[];
  stderr: string[];
}

/** Runs `spec` through `backend` with a bound on time. */
export async function driveBackend(
  backend: Backend,
  spec: RunSpec,
  options: { timeoutMs?: number; stop?: AbortSignal } = {},
): Promise<Driven> {
  const sys = holdState(realSys());
  const launch = backend.launch(spec);
  const state = backend.newState();
  const events: WorkerEvent[] = [];
  const stdout: string[] = [];
  const stderr: string[] = [];
  const end = await runProcess(sys, launch, {
    timeoutMs: options.timeoutMs ?? 60_000,
    ...(options.stop ? { stop: options.stop } : {}),
    onStdoutLine(line, at) {
      stdout.push(line);
      events.push(...backend.parse(line, state, at));
    },
    onStderrLine(line, at) {
      stderr.push(line);
      events.push(...backend.parseStderr(line, state, at));
    },
  });
  return { events, outcome: backend.classify(end, events), end, stdout, stderr };
}
