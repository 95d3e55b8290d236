/**
 * Recognising lost runs: a run in a live state whose supervisor no longer holds the run's lock
 * died without finishing. It is marked `lost` (its slot freed itself with the lock).
 */
import type { HeldSys } from "../../store/state.ts";
import { event } from "../../events/mod.ts";
import { isLocked, tryLock } from "../../store/locks.ts";
import { isFinal, type RunRecord } from "../../store/record.ts";
import { EventLog } from "../run/event_log.ts";
import { Exit } from "../../sys/errors.ts";
import { clearActive, listActive } from "../../store/active.ts";
import { killGroup } from "../run/process.ts";
import { finishFiles } from "../run/finish.ts";
import { runHooks } from "../run/hooks.ts";
import { indexRun } from "../../store/history/mod.ts";
import { isUnwritable } from "../../sys/fs.ts";

/** How long a just-created record may wait for its supervisor to take the lock. */
export const STARTUP_GRACE_MS = 15_000;

const LOST_MESSAGE = "The run's supervisor died before the run finished";

/**
 * True when `record` is live but its supervisor no longer holds the run's lock. The lock held by
 * another process marking the run lost (its lost lock held too) is not a supervisor.
 */
async function supervisorGone(sys: HeldSys, record: RunRecord): Promise<boolean> {
  if (isFinal(record.state)) return false;
  const runPaths = sys.state.paths.run(record.id);
  if (await isLocked(runPaths.supervisorLock) && !(await isLocked(runPaths.lostLock))) {
    return false;
  }
  return record.supervised === true || sys.clock.now() - record.createdAt >= STARTUP_GRACE_MS;
}

/** `record` ended as lost (a copy). */
function asLost(sys: HeldSys, record: RunRecord): RunRecord {
  return {
    ...record,
    state: "lost",
    endedAt: sys.clock.now(),
    outcome: "failed",
    exit: Exit.workerFailed,
    message: LOST_MESSAGE,
  };
}

/**
 * The record as a read sees it, writing nothing: a live run whose supervisor is gone reads as
 * lost. Reads (selecting, following, a plan's status) use this; the sweep (`sweepLost`: the
 * host on each wake, the door before its reads) marks such a run lost for good.
 */
export async function asSeen(sys: HeldSys, record: RunRecord): Promise<RunRecord> {
  return await supervisorGone(sys, record) ? asLost(sys, record) : record;
}

/** Marks every live run whose supervisor is gone lost (its files finished, its hooks run). */
export async function sweepLost(sys: HeldSys): Promise<void> {
  const paths = sys.state.paths;
  for (const id of await listActive(paths)) {
    const record = await sys.state.runs.read(id).catch(() => null);
    if (record !== null) await reconcile(sys, record);
  }
}

/** Marks `record` lost when its supervisor is gone; returns the current record. */
export async function reconcile(sys: HeldSys, record: RunRecord): Promise<RunRecord> {
  if (!(await supervisorGone(sys, record))) return record;
  const paths = sys.state.paths;
  const runPaths = paths.run(record.id);
  // The lost lock, then the supervisor's, held while the run is marked: of two processes sweeping
  // at once (the host and a door's read), one marks it, the other finds the lock taken and leaves
  // it; a late supervisor cannot start it meanwhile, and a read that finds both held sees it lost.
  using lost = await tryLock(runPaths.lostLock);
  if (lost === null) return record;
  using marking = await tryLock(runPaths.supervisorLock);
  if (marking === null) return record;
  // Re-read: the supervisor may have finished between our read and the lock check.
  const read = await sys.state.runs.read(record.id);
  if (read === null || isFinal(read.state)) return read ?? record;
  const worker = read.attempts.at(-1)?.workerPid;
  if (worker !== undefined && (await isGroupLeader(sys, worker))) killGroup(sys, worker, "SIGKILL");
  const fresh = asLost(sys, read);
  try {
    await sys.state.runs.write(fresh);
  } catch (error) {
    // Nothing can be written (a full or read-only disk): a read still sees the run as lost; the
    // first reader after that marks it for good.
    if (isUnwritable(error)) return fresh;
    throw error;
  }
  const log = await EventLog.open(runPaths.events);
  try {
    log.write(event("run.lost", sys.clock.now(), { run: fresh.id, reason: LOST_MESSAGE }));
  } finally {
    log.close();
  }
  await clearActive(paths, fresh.id);
  await finishFiles(runPaths, false);
  await indexRun(sys, fresh);
  // A lost audit (or correction round) still ends on the audited run: as failed.
  await (await runHooks()).afterLost(sys, fresh);
  return fresh;
}

/** True when `pid` is alive and still leads its own process group (the worker we started). */
async function isGroupLeader(sys: HeldSys, pid: number): Promise<boolean> {
  const out = await sys.runner.run(["ps", "-o", "pgid=,stat=", "-p", String(pid)]);
  const [pgid, stat] = out.stdout.trim().split(/\s+/);
  return out.code === 0 && pgid === String(pid) && !stat?.startsWith("Z");
}
