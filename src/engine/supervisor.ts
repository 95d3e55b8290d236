/**
 * Background runs: `--bg` starts this same program detached as the run's supervisor (the hidden
 * `__supervise` command), waits until it holds the run's lock, and returns. The supervisor
 * executes the run and turns SIGTERM/SIGINT into a stop.
 */
import { statePaths } from "../store/paths.ts";
import { isFinal, type RunRecord } from "../store/record.ts";
import { readRecord } from "../store/runs.ts";
import type { Sys } from "../sys/mod.ts";
import { RefusedError } from "../sys/errors.ts";
import { executeRun } from "./lifecycle.ts";
import { watchUntil } from "./watch.ts";

/** The hidden command a supervisor runs. */
export const SUPERVISE_COMMAND = "__supervise";

/** Starts the detached supervisor of a created run and returns once it holds the run. */
export async function startSupervisor(
  sys: Sys,
  id: string,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const paths = statePaths(sys.stateDir);
  const child = sys.runner.spawn([...sys.selfCommand(), SUPERVISE_COMMAND, id], {
    cwd: sys.cwd(),
    env: { ...sys.env.toObject(), PITROOM_STATE_DIR: sys.stateDir },
    stdin: { kind: "null" },
    stdout: "null",
    stderr: "null",
    detached: true,
  });
  child.unref();
  const exited = child.status.then((s) => s);
  const ready = await watchUntil(
    paths.run(id).dir,
    async () => {
      const r = await readRecord(paths, id);
      return r !== null && (r.supervised === true || isFinal(r.state));
    },
    { timeoutMs: options.timeoutMs ?? 20_000, until: exited },
  );
  if (!ready) {
    throw new RefusedError(
      "supervisor_failed",
      `The background supervisor of run "${id}" did not start`,
      {
        hint: `check the run with \`pitroom status ${id}\``,
      },
    );
  }
}

/** Runs as the supervisor: executes the run, stopping it on SIGTERM or SIGINT. */
export async function supervise(sys: Sys, id: string, maxParallel: number): Promise<RunRecord> {
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("stopped"));
  Deno.addSignalListener("SIGTERM", onSignal);
  Deno.addSignalListener("SIGINT", onSignal);
  try {
    return await executeRun(sys, id, { maxParallel, stop: stop.signal });
  } finally {
    Deno.removeSignalListener("SIGTERM", onSignal);
    Deno.removeSignalListener("SIGINT", onSignal);
  }
}
