/**
 * The run lifecycle, from a queued record to a final one: lock the run, take a slot (FIFO),
 * snapshot the tree, walk the worker chain attempt by attempt, collect the changes (undoing a
 * read run's), write the final record and free everything. The same function serves a
 * foreground run and a background supervisor.
 */
import type { HeldSys } from "../../store/state.ts";
import { event, type PitroomEvent } from "../../events/mod.ts";
import type { RunRecord } from "../../store/record.ts";
import { acquireSlot } from "../../store/slots.ts";
import { tryLock, tryLockSoon } from "../../store/locks.ts";
import { clearActive } from "../../store/active.ts";
import { writeTextAtomic } from "../../sys/atomic.ts";
import { logFailure } from "../../store/log.ts";
import { isNoSpace, isOsError } from "../../sys/fs.ts";
import { Exit, PitroomError } from "../../sys/errors.ts";
import type { Backend } from "../../workers/types.ts";
import { exitFor, stateFor } from "../core/exit.ts";
import type { Final } from "../core/final.ts";
import { walkChain } from "./walk.ts";
import { writerBusyMessage } from "../tree/writer.ts";
import { trackTree } from "../tree/tree.ts";
import type { Ahead } from "./ahead.ts";
import { EventLog } from "./event_log.ts";
import { finishFiles } from "./finish.ts";
import { receiptFor } from "./receipt.ts";
import { indexLater as markIndexLater, indexRun } from "../../store/history/mod.ts";
import { runHooks } from "./hooks.ts";
import { MODES } from "../../workers/modes.ts";
import { timingMark } from "../../sys/timing.ts";

/** Options of `executeRun`. */
export interface ExecuteOptions {
  maxParallel: number;
  /** Per-worker caps on runs at once (`{"gemini": 2}`); the run counts as its first worker. */
  limits?: Record<string, number>;
  /** Aborting stops the run (`pitroom stop`, Ctrl-C). */
  stop?: AbortSignal;
  /** Looks up a backend (tests hand in a scripted one). Defaults to the registry. */
  backends?: (name: string) => Backend;
  /** Every event, as it is written (foreground progress). */
  onEvent?(ev: PitroomEvent): void;
  /** Told each time a worker process is spawned. */
  onSpawned?(): void;
  /**
   * Runs an audit's correction round in this process too (a foreground `pitroom audit`);
   * otherwise what follows a run (a sampled audit, a correction round) goes to the host.
   * @default false
   */
  followInline?: boolean;
  /**
   * Leaves the run's history row to the next command that reads the history (marked pending):
   * a foreground run's short-lived process does not keep its caller waiting for SQLite.
   * @default false
   */
  indexLater?: boolean;
  /**
   * Minimum time between progress writes of `run.json`.
   * @default 250
   */
  progressEveryMs?: number;
  /** The run's snapshot walk, started as it was asked for (a foreground read run: ahead.ts). */
  ahead?: Ahead;
}

/** Executes a created run to its end and returns the final record. */
export async function executeRun(
  sys: HeldSys,
  id: string,
  options: ExecuteOptions,
): Promise<RunRecord> {
  const paths = sys.state.paths;
  const runPaths = paths.run(id);
  using lock = await tryLockSoon(runPaths.supervisorLock, { clock: sys.clock });
  if (lock === null) throw new Error(`run ${id} already has a supervisor`);
  const record = await sys.state.runs.load(id);
  record.supervisorPid = sys.pid;
  record.supervised = true;
  await sys.state.runs.write(record);
  timingMark(sys, "locked");

  const log = await EventLog.open(runPaths.events, options.onEvent);
  const emit = (ev: PitroomEvent) => log.write(ev);
  let slot: { release(): Promise<void> } | null = null;
  let writer: { release(): void } | null = null;
  let holder = "";
  let final: Final;
  try {
    slot = await acquireSlot(paths, {
      maxParallel: options.maxParallel,
      clock: sys.clock,
      ...(options.limits ? { limits: options.limits } : {}),
      ...(record.chain[0] ? { limitKey: record.chain[0].worker } : {}),
      queueKey: `${String(record.createdAt).padStart(15, "0")}-${id}`,
      ...(options.stop ? { signal: options.stop } : {}),
      onQueued: (position) => {
        // A snapshot must not be older than the wait for a slot: the run takes its own.
        options.ahead?.release();
        emit(event("run.queued", sys.clock.now(), { run: id, position }));
      },
    });
    record.state = "running";
    record.startedAt = sys.clock.now();
    await sys.state.runs.write(record);
    timingMark(sys, "slot");

    const ahead = options.ahead;
    const tree = ahead !== undefined && ahead.dir === record.cwd
      ? await ahead.tree
      : await trackTree(sys, paths, record.cwd);
    if (tree !== null && MODES[record.mode].editsInPlace) {
      const repoPaths = paths.repo(tree.key);
      writer = await tryLock(repoPaths.writerLock);
      if (writer !== null) await writeTextAtomic(repoPaths.writer, id);
      else holder = await Deno.readTextFile(repoPaths.writer).catch(() => "");
    }
    if (tree === null && MODES[record.mode].edits) {
      final = { outcome: "refused", message: `"${record.cwd}" is not in a git repository` };
    } else if (tree !== null && MODES[record.mode].editsInPlace && writer === null) {
      final = { outcome: "refused", message: writerBusyMessage(tree.root, holder) };
    } else {
      final = await walkChain(sys, record, tree, options, emit);
    }
  } catch (error) {
    if (options.stop?.aborted) {
      final = { outcome: "stopped", message: "Stopped before it started" };
    } else if (error instanceof PitroomError && error.exit === Exit.refused) {
      final = { outcome: "refused", message: error.message };
    } else if (isNoSpace(error)) {
      // Pitroom's own write failed, not the worker: a refusal (exit 3), said in one line.
      final = {
        outcome: "refused",
        message: `No space left on the disk: ${(error as Error).message}`,
      };
    } else {
      final = {
        outcome: "failed",
        message: `Pitroom failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  } finally {
    writer?.release();
  }
  let done: RunRecord;
  try {
    done = await finish(sys, record, final, emit, options.indexLater === true);
  } finally {
    // Freed once the run is final, so no more than maxParallel runs are ever seen running.
    await slot?.release();
    log.close();
  }
  // The run is final: an audit (or its correction round) follows without holding its slot.
  await (await runHooks()).afterRun(sys, done, {
    ...(options.followInline
      ? { inline: (next) => executeRun(sys, next, withoutAhead(options)) }
      : {}),
  });
  return done;
}

/** The options for another run: the walk was for this one. */
function withoutAhead(options: ExecuteOptions): ExecuteOptions {
  const { ahead: _, ...rest } = options;
  return rest;
}

async function finish(
  sys: HeldSys,
  record: RunRecord,
  final: Final,
  emit: (ev: PitroomEvent) => void,
  indexLater: boolean,
): Promise<RunRecord> {
  const paths = sys.state.paths;
  record.state = final.lost === true ? "lost" : stateFor(final.outcome);
  record.outcome = final.outcome;
  record.exit = exitFor(final.outcome);
  record.endedAt = sys.clock.now();
  if (final.message !== undefined && final.outcome !== "ok") record.message = final.message;
  if (final.answer !== undefined) record.answer = final.answer;
  if (final.changes !== undefined) record.changes = final.changes;
  else if (!MODES[record.mode].keepsChanges) delete record.changes;
  // A cached answer cost nothing now: what it cost and saved stays on the run that made it.
  const receipt = record.cached !== undefined
    ? undefined
    : await receiptFor(sys, record).catch(async (error) => {
      // The prices come from the config file: one the file system refuses leaves no receipt.
      if (!isOsError(error)) throw error;
      await logFailure(sys, "runs.log", { what: `pricing run ${record.id} (no receipt)`, error });
      return undefined;
    });
  if (receipt !== undefined) record.receipt = receipt;
  const hooks = await runHooks();
  hooks.concludeAnswer(record);
  await sys.state.runs.write(record);
  timingMark(sys, "final-written");
  await hooks.recordReview(sys, record).catch(async (error) => {
    // The reviewed run's folder the file system refuses: the review keeps its verdict anyway.
    if (!isOsError(error)) throw error;
    await logFailure(sys, "runs.log", { what: `copying review ${record.id}'s verdict`, error });
  });
  emit(event("run.finished", record.endedAt, {
    run: record.id,
    state: record.state,
    outcome: final.outcome,
    exit: record.exit,
    ...(record.message ? { message: record.message } : {}),
    ...(record.changes ? { changed: record.changes.files.map((f) => f.path) } : {}),
  }));
  await hooks.rememberAnswer(sys, record).catch((error) =>
    logFailure(sys, "runs.log", { what: `remembering the answer of run ${record.id}`, error })
  );
  await finishFiles(paths.run(record.id), final.outcome === "ok");
  await (indexLater ? markIndexLater : indexRun)(sys, record);
  await clearActive(paths, record.id);
  timingMark(sys, "finished");
  return record;
}
