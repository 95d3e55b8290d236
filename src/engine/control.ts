/**
 * Commands on existing runs: wait for them, stop them, revert their changes.
 */
import { isLocked } from "../store/locks.ts";
import { type StatePaths, statePaths } from "../store/paths.ts";
import { isFinal, type RunRecord } from "../store/record.ts";
import { damagedRunJson, loadRecord, readRecordChecked, writeRecord } from "../store/runs.ts";
import type { Sys } from "../sys/mod.ts";
import { type DamagedRecord, RefusedError, StillRunning } from "../sys/errors.ts";
import { killGroup } from "./process.ts";
import { reconcile } from "./liveness.ts";
import { trackTree } from "./tree.ts";
import { watchUntil } from "./watch.ts";
import { pausePoint } from "./pause.ts";
import { ApplyInterrupted } from "./apply.ts";
import { putStop } from "./host_inbox.ts";
import { subscribe } from "./feed.ts";
import { indexRun } from "../store/history/mod.ts";
import { splitChanges } from "./worker_changes.ts";

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
  sys: Sys,
  ids: string[],
  options: WaitOptions,
): Promise<RunRecord[]> {
  const paths = statePaths(sys.stateDir);
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
    const read = await readRecordChecked(paths, id);
    if (read.record !== null) records.push(await reconcile(sys, read.record));
    // Cleaned while waited for: `No run`.
    else if (read.damage === null) records.push(await loadRecord(paths, id));
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
 * killed here.
 */
export async function stopRun(sys: Sys, id: string, options: StopOptions = {}): Promise<RunRecord> {
  const paths = statePaths(sys.stateDir);
  const record = await reconcile(sys, await loadRecord(paths, id));
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
  const ended = await watchUntil(paths.run(id).dir, async () => {
    const r = await reconcile(sys, await loadRecord(paths, id));
    return isFinal(r.state);
  }, { timeoutMs: 15_000, clock: sys.clock });
  if (!ended) {
    const latest = await loadRecord(paths, id);
    const worker = latest.attempts.at(-1)?.workerPid;
    if (worker !== undefined) killGroup(sys, worker, "SIGKILL");
    if (own) sys.runner.kill(record.supervisorPid!, "SIGKILL");
  }
  return await reconcile(sys, await loadRecord(paths, id));
}

/** Options of `revertRun`. */
export interface RevertRunOptions {
  /**
   * Undo also the files changed while the run worked that no tool call of the worker could have
   * changed (`changes.others`). @default false
   */
  all?: boolean;
}

/**
 * Undoes exactly a finished run's changes (checked first): the files its worker's recorded tool
 * calls could have changed, and with `all` the others too. A lost write run's changes are
 * captured now (snapshot and attribution by its events file and the files' times); a run that
 * changed nothing has nothing to revert.
 */
export async function revertRun(
  sys: Sys,
  id: string,
  options: RevertRunOptions = {},
): Promise<RunRecord> {
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
  const othersLeft = () => changes.othersReverted ? [] : changes.others ?? [];
  if (changes.reverted && (!options.all || othersLeft().length === 0)) {
    throw new RefusedError("already_reverted", `Run "${id}" was reverted already`);
  }
  if (record.mode === "isolate" && record.isolation?.applying !== undefined) {
    throw new ApplyInterrupted(id, "revert");
  }
  if (record.mode === "isolate" && record.isolation?.applied === undefined) {
    throw new RefusedError(
      "not_applied",
      `Run "${id}" worked in a private copy and was not applied: your tree has none of its changes`,
      { hint: `drop the copy with \`pitroom discard ${id}\`` },
    );
  }
  const tree = await trackTree(sys, paths, record.repoRoot);
  if (tree === null) {
    throw new RefusedError("no_repo", `"${record.repoRoot}" is no longer a git repository`);
  }
  if (record.mode !== "isolate" && record.state === "lost" && !changes.reverted) {
    // The supervisor died before collecting: capture now, and count as the worker's only what
    // its recorded calls could have changed before its last recorded activity.
    const after = (await tree.snapshot({ base: changes.before })).tree;
    const diff = await tree.diff(changes.before, after);
    await pausePoint(sys, "capturing");
    const split = await splitChanges(sys, record, diff.files, { root: tree.root });
    changes.after = after;
    changes.files = split.files;
    if (split.others) changes.others = split.others;
    else delete changes.others;
  }
  const chosen = new Set<string>();
  if (!changes.reverted) { for (const file of changes.files) chosen.add(file.path); }
  const others = othersLeft();
  if (options.all) { for (const file of others) chosen.add(file.path); }
  if (chosen.size === 0) {
    throw new RefusedError(
      "nothing_to_revert",
      others.length === 0
        ? `Run "${id}" changed no file`
        : `Run "${id}" changed no file through its tools: ${others.length} file(s) changed while it worked, not by a tool the worker called`,
      others.length === 0 ? {} : { hint: `undo those too with \`pitroom revert ${id} --all\`` },
    );
  }
  await pausePoint(sys, "reverting");
  // An applied isolate run is undone as the apply changed the tree (merged files included).
  const applied = record.mode === "isolate" ? record.isolation?.applied : undefined;
  if (applied?.before !== undefined && applied.after !== undefined) {
    await tree.revert(applied.before, applied.after, id, { only: chosen });
  } else await tree.revert(changes.before, changes.after, id, { only: chosen });
  changes.reverted = true;
  if (options.all && others.length > 0) changes.othersReverted = true;
  await writeRecord(paths, record);
  await indexRun(sys, record);
  return record;
}
