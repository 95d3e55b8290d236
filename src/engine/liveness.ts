/**
 * Recognising lost runs: a run in a live state whose supervisor no longer holds the run's lock
 * died without finishing. It is marked `lost` (its slot freed itself with the lock).
 */
import { event } from "../events/mod.ts";
import { isLocked } from "../store/locks.ts";
import { statePaths } from "../store/paths.ts";
import { isFinal, type RunRecord } from "../store/record.ts";
import { readRecord, writeRecord } from "../store/runs.ts";
import type { Sys } from "../sys/mod.ts";
import { EventLog } from "./event_log.ts";
import { Exit } from "../sys/errors.ts";
import { clearActive } from "../store/active.ts";
import { killGroup } from "./process.ts";
import { finishFiles } from "./finish.ts";
import { indexRun } from "../store/history/mod.ts";
import { isUnwritable } from "../sys/fs.ts";

/** How long a just-created record may wait for its supervisor to take the lock. */
export const STARTUP_GRACE_MS = 15_000;

/** Marks `record` lost when its supervisor is gone; returns the current record. */
export async function reconcile(sys: Sys, record: RunRecord): Promise<RunRecord> {
  if (isFinal(record.state)) return record;
  const paths = statePaths(sys.stateDir);
  const runPaths = paths.run(record.id);
  if (await isLocked(runPaths.supervisorLock)) return record;
  if (!record.supervised && sys.clock.now() - record.createdAt < STARTUP_GRACE_MS) return record;
  // Re-read: the supervisor may have finished between our read and the lock check.
  const fresh = await readRecord(paths, record.id);
  if (fresh === null || isFinal(fresh.state)) return fresh ?? record;
  const worker = fresh.attempts.at(-1)?.workerPid;
  if (worker !== undefined && (await isGroupLeader(sys, worker))) killGroup(sys, worker, "SIGKILL");
  fresh.state = "lost";
  fresh.endedAt = sys.clock.now();
  fresh.outcome = "failed";
  fresh.exit = Exit.workerFailed;
  fresh.message = "The run's supervisor died before the run finished";
  try {
    await writeRecord(paths, fresh);
  } catch (error) {
    // Nothing can be written (a full or read-only disk): a read still sees the run as lost; the
    // first reader after that marks it for good.
    if (isUnwritable(error)) return fresh;
    throw error;
  }
  const log = await EventLog.open(runPaths.events);
  try {
    log.write(event("run.lost", sys.clock.now(), { run: fresh.id, reason: fresh.message }));
  } finally {
    log.close();
  }
  await clearActive(paths, fresh.id);
  await finishFiles(runPaths, false);
  await indexRun(sys, fresh);
  // A lost audit (or correction round) still ends on the audited run: as failed.
  if (fresh.auditOf !== undefined) {
    const { afterRun } = await import("./audit/complete.ts");
    await afterRun(sys, fresh);
  }
  return fresh;
}

/**
 * A run whose audit (or correction round) is still `running`: its audit run is reconciled too,
 * so one whose supervisor died ends as a failed audit instead of running for ever.
 */
export async function reconcileAudit(sys: Sys, record: RunRecord): Promise<RunRecord> {
  const audit = record.audit;
  const live = audit?.state === "running"
    ? audit.run
    : audit?.fix?.state === "running"
    ? audit.fix.run
    : undefined;
  if (live === undefined) return record;
  const paths = statePaths(sys.stateDir);
  const run = await readRecord(paths, live);
  if (run === null || isFinal(run.state)) return record;
  if ((await reconcile(sys, run)).state !== "lost") return record;
  return (await readRecord(paths, record.id)) ?? record;
}

/** True when `pid` is alive and still leads its own process group (the worker we started). */
async function isGroupLeader(sys: Sys, pid: number): Promise<boolean> {
  const out = await sys.runner.run(["ps", "-o", "pgid=,stat=", "-p", String(pid)]);
  const [pgid, stat] = out.stdout.trim().split(/\s+/);
  return out.code === 0 && pgid === String(pid) && !stat?.startsWith("Z");
}
