/**
 * The run lifecycle, from a queued record to a final one: lock the run, take a slot (FIFO),
 * snapshot the tree, walk the worker chain attempt by attempt, collect the changes (undoing a
 * read run's), write the final record and free everything. The same function serves a
 * foreground run and a background supervisor.
 */
import { event, type OutcomeClass, type PitroomEvent } from "../events/mod.ts";
import { statePaths } from "../store/paths.ts";
import type { Attempt, Changes, Progress, RunRecord } from "../store/record.ts";
import { loadRecord, writeRecord } from "../store/runs.ts";
import { acquireSlot } from "../store/slots.ts";
import { tryLock } from "../store/locks.ts";
import { clearActive } from "../store/active.ts";
import type { Sys } from "../sys/mod.ts";
import { getBackend } from "../workers/registry.ts";
import type { Backend, WorkerName } from "../workers/types.ts";
import { runAttempt } from "./attempt.ts";
import { exitFor, FALLBACK_CLASSES, stateFor } from "./exit.ts";
import { buildPrompt } from "./prompt.ts";
import { type TrackedTree, trackTree } from "./tree.ts";
import { EventLog } from "./event_log.ts";
import { finishFiles } from "./finish.ts";
import { targetLabel } from "./chain.ts";

/** Options of `executeRun`. */
export interface ExecuteOptions {
  maxParallel: number;
  /** Aborting stops the run (`pitroom stop`, Ctrl-C). */
  stop?: AbortSignal;
  /** Looks up a backend (tests hand in a scripted one). Defaults to the registry. */
  backends?: (name: WorkerName) => Backend;
  /** Every event, as it is written (foreground progress). */
  onEvent?(ev: PitroomEvent): void;
  /**
   * Minimum time between progress writes of `run.json`.
   * @default 250
   */
  progressEveryMs?: number;
}

interface Final {
  outcome: OutcomeClass;
  message?: string;
  answer?: string;
  changes?: Changes;
}

/** Executes a created run to its end and returns the final record. */
export async function executeRun(
  sys: Sys,
  id: string,
  options: ExecuteOptions,
): Promise<RunRecord> {
  const paths = statePaths(sys.stateDir);
  const runPaths = paths.run(id);
  using lock = await tryLock(runPaths.supervisorLock);
  if (lock === null) throw new Error(`run ${id} already has a supervisor`);
  let record = await loadRecord(paths, id);
  record.supervisorPid = sys.pid;
  record.supervised = true;
  await writeRecord(paths, record);

  const log = await EventLog.open(runPaths.events, options.onEvent);
  const emit = (ev: PitroomEvent) => log.write(ev);
  let slot: { release(): Promise<void> } | null = null;
  let writer: { release(): void } | null = null;
  let final: Final;
  try {
    slot = await acquireSlot(paths, {
      maxParallel: options.maxParallel,
      queueKey: `${String(record.createdAt).padStart(15, "0")}-${id}`,
      ...(options.stop ? { signal: options.stop } : {}),
      onQueued: (position) => emit(event("run.queued", sys.clock.now(), { run: id, position })),
    });
    record.state = "running";
    record.startedAt = sys.clock.now();
    await writeRecord(paths, record);

    const tree = await trackTree(sys, paths, record.cwd);
    if (tree === null && record.mode !== "read") {
      final = { outcome: "refused", message: `"${record.cwd}" is not in a git repository` };
    } else {
      if (tree !== null && record.mode !== "read") {
        writer = await tryLock(paths.repo(tree.key).writerLock);
        if (writer === null) {
          final = { outcome: "refused", message: `Another write run is working in "${tree.root}"` };
          return await finish(sys, record, final, emit);
        }
      }
      final = await walkChain(sys, record, tree, options, emit, (r) => (record = r));
    }
  } catch (error) {
    if (options.stop?.aborted) {
      final = { outcome: "stopped", message: "Stopped before it started" };
    } else {
      final = {
        outcome: "failed",
        message: `Pitroom failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  } finally {
    writer?.release();
  }
  try {
    return await finish(sys, record, final, emit);
  } finally {
    await slot?.release();
    log.close();
  }
}

async function walkChain(
  sys: Sys,
  record: RunRecord,
  tree: TrackedTree | null,
  options: ExecuteOptions,
  emit: (ev: PitroomEvent) => void,
  update: (r: RunRecord) => void,
): Promise<Final> {
  const paths = statePaths(sys.stateDir);
  const runPaths = paths.run(record.id);
  const before = tree ? await tree.snapshot() : null;
  if (tree && before) {
    // Recorded before the worker starts: a crash mid-run can still be reverted exactly.
    record.repoRoot = tree.root;
    record.changes = { before, after: before.tree, files: [] };
    await writeRecord(paths, record);
  }
  const prompt = buildPrompt(record.task, record.mode);
  await Deno.writeTextFile(runPaths.prompt, prompt, { mode: 0o600 });
  const deadline = (record.startedAt ?? sys.clock.now()) + record.timeoutMs;
  let last: Final = { outcome: "failed", message: "No worker ran" };
  let lastWrite = 0;
  const progressEvery = options.progressEveryMs ?? 250;

  for (let i = 0; i < record.chain.length; i++) {
    const target = record.chain[i]!;
    const backend = (options.backends ?? getBackend)(target.worker);
    const attempt: Attempt = {
      worker: target.worker,
      startedAt: sys.clock.now(),
      ...(target.model ? { model: target.model } : {}),
    };
    record.attempts.push(attempt);
    await writeRecord(paths, record);
    emit(event("run.started", sys.clock.now(), {
      run: record.id,
      worker: target.worker,
      mode: record.mode,
      attempt: i + 1,
      ...(target.model ? { model: target.model } : {}),
    }));
    const progress: Progress = record.progress;
    const result = await runAttempt(sys, runPaths, {
      backend,
      runId: record.id,
      attempt: i + 1,
      mode: record.mode,
      prompt,
      cwd: record.cwd,
      web: record.web,
      timeoutMs: Math.max(1, deadline - sys.clock.now()),
      progress,
      ...(target.model ? { model: target.model } : {}),
      ...(record.effort ? { effort: record.effort } : {}),
      ...(options.stop ? { stop: options.stop } : {}),
    }, {
      emit,
      progressed(p) {
        const now = sys.clock.now();
        if (now - lastWrite < progressEvery) return;
        lastWrite = now;
        record.progress = p;
        emit(event("run.progress", now, {
          run: record.id,
          steps: p.steps,
          tools: p.tools,
          tokens: p.tokens,
          ...(p.last ? { last: p.last } : {}),
        }));
        writeRecord(paths, record).catch(() => undefined);
      },
      spawned(pid) {
        attempt.workerPid = pid;
        writeRecord(paths, record).catch(() => undefined);
      },
    });
    attempt.endedAt = sys.clock.now();
    attempt.outcome = result.outcome.class;
    attempt.message = result.outcome.message;
    if (result.sessionId) attempt.sessionId = result.sessionId;
    update(record);
    last = {
      outcome: result.outcome.class,
      message: result.outcome.message,
      ...(result.answer === undefined ? {} : { answer: result.answer }),
    };
    const next = record.chain[i + 1];
    if (!FALLBACK_CLASSES.has(result.outcome.class) || next === undefined) break;
    emit(event("run.fallback", sys.clock.now(), {
      run: record.id,
      from: targetLabel(target),
      to: targetLabel(next),
      reason: result.outcome.class,
      message: result.outcome.message,
    }));
  }

  if (tree && before) {
    const after = (await tree.snapshot()).tree;
    if (after !== before.tree) {
      const diff = await tree.diff(before, after);
      await Deno.writeFile(runPaths.patch, diff.patch, { mode: 0o600 });
      const changes: Changes = { before, after, files: diff.files };
      if (record.mode === "read") {
        await tree.revert(before, after, record.id);
        changes.reverted = true;
        return {
          outcome: "read_only_violation",
          message: `The worker changed ${diff.files.length} file(s) in a read-only run: undone`,
          changes,
          ...(last.answer === undefined ? {} : { answer: last.answer }),
        };
      }
      return { ...last, changes };
    }
    if (record.mode === "read") return { ...last };
    return { ...last, changes: { before, after, files: [] } };
  }
  return last;
}

async function finish(
  sys: Sys,
  record: RunRecord,
  final: Final,
  emit: (ev: PitroomEvent) => void,
): Promise<RunRecord> {
  const paths = statePaths(sys.stateDir);
  record.state = stateFor(final.outcome);
  record.outcome = final.outcome;
  record.exit = exitFor(final.outcome);
  record.endedAt = sys.clock.now();
  if (final.message !== undefined && final.outcome !== "ok") record.message = final.message;
  if (final.answer !== undefined) record.answer = final.answer;
  if (final.changes !== undefined) record.changes = final.changes;
  else if (record.mode === "read") delete record.changes;
  await writeRecord(paths, record);
  emit(event("run.finished", record.endedAt, {
    run: record.id,
    state: record.state,
    outcome: final.outcome,
    exit: record.exit,
    ...(record.message ? { message: record.message } : {}),
    ...(record.changes ? { changed: record.changes.files.map((f) => f.path) } : {}),
  }));
  await finishFiles(paths.run(record.id), final.outcome === "ok");
  await clearActive(paths, record.id);
  return record;
}
