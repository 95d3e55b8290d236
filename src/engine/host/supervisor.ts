/**
 * Background runs: `--bg` and `crew` hand their runs to the host (src/engine/host/host.ts) through its
 * inbox, then start a host (this same program, detached, the hidden `__supervise` command) when
 * none holds the host lock, and return once a host has taken every run. The order matters: the
 * entry is written before the lock is looked at, so a host that is just leaving either sees the
 * entry on its last look or has released the lock for a new host.
 */
import type { HeldSys } from "../../store/state.ts";
import { isLocked } from "../../store/locks.ts";
import type { StatePaths } from "../../store/paths.ts";
import type { ChildHandle } from "../../sys/mod.ts";
import { RefusedError } from "../../sys/errors.ts";
import { ENTRY_SCHEMA, isWaiting, putEntry } from "./inbox.ts";
import { watchUntil } from "../core/watch.ts";

/** The hidden command the host runs. */
const SUPERVISE_COMMAND = "__supervise";

/**
 * V8 flags of the host, before any the starter's environment gives (a later flag wins): a young
 * generation of 2 MB semi-spaces instead of up to 16. The host folds the lines of 30 workers at
 * once and V8 grows its young generation with that churn and keeps it: 26 MB of heap for 14 used,
 * 91 MB RSS with 30 runs in flight; with this, 17 MB of heap and 83 MB (benchmarks/crew, part
 * c). `DENO_V8_FLAGS` reaches a compiled binary as it does `deno run`; the host's workers get
 * their starter's environment, not the host's.
 */
const HOST_V8_FLAGS = "--max-semi-space-size=2";

/** The host's environment: the starter's, with the host's V8 flags first. */
export function hostEnv(env: Record<string, string>, stateDir: string): Record<string, string> {
  const given = env.DENO_V8_FLAGS;
  return {
    ...env,
    DENO_V8_FLAGS: given ? `${HOST_V8_FLAGS},${given}` : HOST_V8_FLAGS,
    PITROOM_STATE_DIR: stateDir,
  };
}

/** How often a starter starts a host again when the one it started left before taking its runs. */
const HOST_START_TRIES = 4;

/** Starts a host when none runs; returns the new host's process, or null when one runs already. */
async function ensureHost(sys: HeldSys, paths: StatePaths): Promise<ChildHandle | null> {
  if (await isLocked(paths.host.lock)) return null;
  const child = sys.runner.spawn([...sys.selfCommand(), SUPERVISE_COMMAND], {
    cwd: sys.stateDir,
    env: hostEnv(sys.env.toObject(), sys.stateDir),
    stdin: { kind: "null" },
    stdout: "null",
    stderr: "null",
    detached: true,
  });
  child.unref();
  return child;
}

/** Hands created runs to the host and returns once a host has taken them all. */
export async function startSupervisors(
  sys: HeldSys,
  ids: readonly string[],
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const paths = sys.state.paths;
  const env = sys.env.toObject();
  const at = sys.clock.now();
  for (const [seq, run] of ids.entries()) {
    await putEntry(paths, {
      schemaVersion: ENTRY_SCHEMA,
      run,
      env,
      cwd: sys.cwd(),
      configPath: sys.configPath,
      at,
      seq,
    });
  }
  const allTaken = async () => {
    for (const id of ids) if (await isWaiting(paths, id)) return false;
    return true;
  };
  for (let tries = 1;; tries++) {
    const host = await ensureHost(sys, paths);
    const taken = await watchUntil(paths.host.inbox, allTaken, {
      timeoutMs: options.timeoutMs ?? 20_000,
      clock: sys.clock,
      ...(host ? { until: host.status } : {}),
    });
    if (taken) return;
    // The host we started found another one leaving and left: look again.
    if (host === null || tries >= HOST_START_TRIES) break;
  }
  throw new RefusedError(
    "supervisor_failed",
    `The background host did not take ${
      ids.length === 1 ? `run "${ids[0]}"` : `${ids.length} runs`
    }`,
    { hint: `check the state dir's logs/host.log, then \`pitroom status ${ids[0] ?? ""}\`` },
  );
}

/** Hands one created run to the host (see `startSupervisors`). */
export async function startSupervisor(
  sys: HeldSys,
  id: string,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  await startSupervisors(sys, [id], options);
}
