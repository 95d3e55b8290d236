/**
 * Commands on existing runs: wait for them, stop them (revert: engine/runs/revert.ts).
 */
import type { HeldSys } from "../../store/state.ts";
import { isLocked } from "../../store/locks.ts";
import type { StatePaths } from "../../store/paths.ts";
import { isFinal, type RunRecord } from "../../store/record.ts";
import { damagedRunJson } from "../../store/runs.ts";
import { type DamagedRecord, RefusedError, StillRunning } from "../../sys/errors.ts";
import { killGroup } from "../run/process.ts";
import { asSeen, reconcile } from "../host/liveness.ts";
import { watchUntil } from "../core/watch.ts";
import { putStop } from "../host/inbox.ts";
import { subscribe } from "../follow/feed.ts";

/** Options of `waitForRuns`. */
export interface WaitOptions {
  /** Return as soon as one run has ended. */
  any?: boolean;
  timeoutMs: number;
  /** The command that waits again, for the hint when the time runs out. */
  again?: string;
  /** Aborting ends the wait with the abort reason (the runs go on). */
  signal?: AbortSignal;
  /**
   * Told of each damaged file met (once per run): a run whose record is damaged counts as ended
   * and is left out of the result; one whose events file is, ends when its record says so.
   */
  onDamage?(damage: DamagedRecord): void;
}

/**
 * Waits for all (or any) of the runs to end, following their events (no polling); resolves
 * with the final records (with `any`, of the runs that ended), throws `StillRunning` when the
 * time runs out.
 */
export async function waitForRuns(
  sys: HeldSys,
  ids: string[],
  options: WaitOptions,
): Promise<RunRecord[]> {
  const ended: string[] = [];
  const first = Promise.withResolvers<void>();
  const damaged = new Map<string, DamagedRecord>();
  const feed = subscribe(sys, { runs: ids }, ({ run, event }) => {
    if (event.type !== "run.finished" && event.type !== "run.lost") return;
    ended.push(run);
    if (options.any) first.resolve();
  }, {
    onDamage(damage) {
      damaged.set(damage.run, damage);
      options.onDamage?.(damage);
      if (damage.file !== "run.json") return;
      // Its state cannot be known: it is not waited for.
      ended.push(damage.run);
      if (options.any) first.resolve();
    },
  });
  feed.ended.then(() => first.resolve(), (error) => first.reject(error));
  const timer = new AbortController();
  const timeout = sys.sleep(options.timeoutMs, timer.signal).then(
    () => "timeout" as const,
    () => "cancelled" as const,
  );
  const cancelled = Promise.withResolvers<never>();
  const onAbort = () => cancelled.reject(options.signal?.reason ?? new Error("cancelled"));
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const winner = await Promise.race([
      first.promise.then(() => "ended" as const),
      timeout,
      cancelled.promise,
    ]);
    if (winner === "timeout") {
      const pending = ids.length - new Set(ended).size;
      throw new StillRunning(
        `${pending} of ${ids.length} run(s) still going after ${
          Math.round(options.timeoutMs / 1000)
        }s`,
        { hint: `wait again with \`${options.again ?? `pitroom wait ${ids.join(" ")}`}\`` },
      );
    }
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    timer.abort();
    await feed.close();
  }
  const chosen = options.any ? [...new Set(ended)] : ids;
  const records: RunRecord[] = [];
  for (const id of chosen) {
    const read = await sys.state.runs.checked(id);
    if (read.record !== null) records.push(await asSeen(sys, read.record));
    // Cleaned while waited for: `No run`.
    else if (read.damage === null) records.push(await sys.state.runs.load(id));
    else if (!damaged.has(id)) {
      const damage = damagedRunJson(id, read.damage);
      damaged.set(id, damage);
      options.onDamage?.(damage);
    }
  }
  return records;
}

/** The pid of the live host of this state dir, or null when none runs. */
async function hostPid(paths: StatePaths): Promise<number | null> {
  if (!(await isLocked(paths.host.lock))) return null;
  const text = await Deno.readTextFile(paths.host.pid).catch(() => "");
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Options of `stopRun`. */
export interface StopOptions {
  /** Stops the run when it is a foreground run of this very process (no signal is sent). */
  abort?: () => void;
}

/**
 * Stops a live run, queued or running. A background run gets a stop request its host acts on
 * (the host and its other runs go on); a foreground run's own process gets SIGTERM, unless that
 * process is the caller: then `abort` stops it (no code path signals the caller's own pid).
 * Either way the worker's process group is killed; when nothing happens within 15 s, it is
 * killed here, and the run's end is waited for again (a record that is still not final after
 * that is returned as it is).
 */
export async function stopRun(
  sys: HeldSys,
  id: string,
  options: StopOptions = {},
): Promise<RunRecord> {
  const paths = sys.state.paths;
  const record = await reconcile(sys, await sys.state.runs.load(id));
  if (isFinal(record.state)) return record;
  const host = await hostPid(paths);
  const self = record.supervisorPid === sys.pid && host !== sys.pid;
  const own = !self && record.supervisorPid !== undefined && record.supervisorPid !== host;
  if (self) {
    if (options.abort === undefined) {
      throw new RefusedError("own_run", `Run "${id}" runs in this process: stop it there`);
    }
    options.abort();
  } else if (own) sys.runner.kill(record.supervisorPid!, "SIGTERM");
  else await putStop(paths, id);
  const final = (timeoutMs: number) =>
    watchUntil(paths.run(id).dir, async () => {
      const r = await reconcile(sys, await sys.state.runs.load(id));
      return isFinal(r.state);
    }, { timeoutMs, clock: sys.clock });
  if (!(await final(15_000))) {
    const latest = await sys.state.runs.load(id);
    const worker = latest.attempts.at(-1)?.workerPid;
    if (worker !== undefined) killGroup(sys, worker, "SIGKILL");
    if (own) sys.runner.kill(record.supervisorPid!, "SIGKILL");
    // Its supervisor (the host, or the killed process's sweep) writes the end once the worker is
    // gone: the caller gets the final record, not one still running a moment before its end.
    await final(15_000);
  }
  return await reconcile(sys, await sys.state.runs.load(id));
}
