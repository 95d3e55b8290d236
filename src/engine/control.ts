/**
 * Commands on existing runs: wait for them, stop them, revert their changes.
 */
import { isLocked, waitUnlocked } from "../store/locks.ts";
import { type StatePaths, statePaths } from "../store/paths.ts";
import { isFinal, type RunRecord } from "../store/record.ts";
import { loadRecord, writeRecord } from "../store/runs.ts";
import type { Sys } from "../sys/mod.ts";
import { RefusedError, StillRunning } from "../sys/errors.ts";
import { killGroup } from "./process.ts";
import { reconcile } from "./liveness.ts";
import { trackTree } from "./tree.ts";
import { watchUntil } from "./watch.ts";
import { putStop } from "./host_inbox.ts";
import { indexRun } from "../history/mod.ts";

/** Resolves with the run's final record once it ends (finished or lost). */
export async function waitForRun(sys: Sys, id: string): Promise<RunRecord> {
  const paths = statePaths(sys.stateDir);
  const lockPath = paths.run(id).supervisorLock;
  for (;;) {
    let record = await reconcile(sys, await loadRecord(paths, id));
    if (isFinal(record.state)) return record;
    if (await isLocked(lockPath)) {
      await waitUnlocked(lockPath);
      record = await reconcile(sys, await loadRecord(paths, id));
      if (isFinal(record.state)) return record;
    }
    // The supervisor is starting: wait for the record to change.
    await watchUntil(paths.run(id).dir, async () => {
      const r = await loadRecord(paths, id);
      return r.supervised === true || isFinal(r.state);
    }, { timeoutMs: 5_000 });
  }
}

/** Options of `waitForRuns`. */
export interface WaitOptions {
  any?: boolean;
  timeoutMs: number;
}

/** Waits for all (or any) of the runs; throws `StillRunning` when the time runs out. */
export async function waitForRuns(
  sys: Sys,
  ids: string[],
  options: WaitOptions,
): Promise<RunRecord[]> {
  const waits = ids.map((id) => waitForRun(sys, id));
  const all = options.any ? Promise.any(waits).then((r) => [r]) : Promise.all(waits);
  const timeout = sys.sleep(options.timeoutMs).then(() => "timeout" as const);
  const winner = await Promise.race([all, timeout]);
  if (winner === "timeout") {
    throw new StillRunning(`Still running after ${Math.round(options.timeoutMs / 1000)}s`, {
      hint: `wait again with \`pitroom wait ${ids.join(" ")}\``,
    });
  }
  return winner;
}

/** The pid of the live host of this state dir, or null when none runs. */
async function hostPid(paths: StatePaths): Promise<number | null> {
  if (!(await isLocked(paths.host.lock))) return null;
  const text = await Deno.readTextFile(paths.host.pid).catch(() => "");
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

function signal(pid: number, sig: Deno.Signal): void {
  try {
    Deno.kill(pid, sig);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/**
 * Stops a live run, queued or running. A background run gets a stop request its host acts on
 * (the host and its other runs go on); a foreground run's own process gets SIGTERM. Either way
 * the worker's process group is killed; when nothing happens within 15 s, it is killed here.
 */
export async function stopRun(sys: Sys, id: string): Promise<RunRecord> {
  const paths = statePaths(sys.stateDir);
  const record = await reconcile(sys, await loadRecord(paths, id));
  if (isFinal(record.state)) return record;
  const host = await hostPid(paths);
  const own = record.supervisorPid !== undefined && record.supervisorPid !== host;
  if (own) signal(record.supervisorPid!, "SIGTERM");
  else await putStop(paths, id);
  const ended = await watchUntil(paths.run(id).dir, async () => {
    const r = await reconcile(sys, await loadRecord(paths, id));
    return isFinal(r.state);
  }, { timeoutMs: 15_000 });
  if (!ended) {
    const latest = await loadRecord(paths, id);
    const worker = latest.attempts.at(-1)?.workerPid;
    if (worker !== undefined) killGroup(worker, "SIGKILL");
    if (own) signal(record.supervisorPid!, "SIGKILL");
  }
  return await reconcile(sys, await loadRecord(paths, id));
}

/** Undoes exactly a finished run's changes (checked first). */
export async function revertRun(sys: Sys, id: string): Promise<RunRecord> {
  const paths = statePaths(sys.stateDir);
  const record = await reconcile(sys, await loadRecord(paths, id));
  if (!isFinal(record.state)) {
    throw new RefusedError("run_live", `Run "${id}" is still ${record.state}`, {
      hint: `stop it first with \`pitroom stop ${id}\``,
    });
  }
  const changes = record.changes;
  if (changes === undefined || record.repoRoot === undefined) {
    throw new RefusedError("nothing_to_revert", `Run "${id}" changed nothing Pitroom can revert`);
  }
  if (changes.reverted) {
    throw new RefusedError("already_reverted", `Run "${id}" was reverted already`);
  }
  const tree = await trackTree(sys, paths, record.repoRoot);
  if (tree === null) {
    throw new RefusedError("no_repo", `"${record.repoRoot}" is no longer a git repository`);
  }
  let after = changes.after;
  if (record.state === "lost" || after === changes.before.tree) {
    // The supervisor died before collecting: everything since the snapshot is the worker's.
    after = (await tree.snapshot({ base: changes.before })).tree;
    const diff = await tree.diff(changes.before, after);
    changes.files = diff.files;
    changes.after = after;
  }
  if (changes.files.length === 0) {
    throw new RefusedError("nothing_to_revert", `Run "${id}" changed no file`);
  }
  await tree.revert(changes.before, after, id);
  changes.reverted = true;
  await writeRecord(paths, record);
  await indexRun(sys, record);
  return record;
}
