/**
 * Walking a run's worker chain: skip targets that are cooling down (the last one is always
 * tried), run each attempt, put a rate-limited or out-of-quota target into cooldown, and move
 * on for the fallback classes. A target that already did work hands the next one a summary of
 * its steps and, in write mode, the files it changed (its edits stay). Afterwards the tree is
 * compared with the snapshot: a write run's changes are recorded, a read run's are undone.
 */
import { event, type OutcomeClass, type PitroomEvent, type WorkerEvent } from "../events/mod.ts";
import { activeCooldowns, cooldownKey, putCooldown } from "../store/cooldown.ts";
import { statePaths } from "../store/paths.ts";
import type { Attempt, Changes, RunRecord, Target } from "../store/record.ts";
import { writeRecord } from "../store/runs.ts";
import type { Sys } from "../sys/mod.ts";
import { PitroomError, RefusedError } from "../sys/errors.ts";
import { exists } from "../sys/fs.ts";
import { join } from "../sys/path.ts";
import type { Backend, WorkerName } from "../workers/types.ts";
import { getBackend } from "../workers/registry.ts";
import { runAttempt } from "./attempt.ts";
import { targetLabel } from "./chain.ts";
import { cooldownUntil, formatUntil } from "./cooldown.ts";
import { FALLBACK_CLASSES } from "./exit.ts";
import { buildPrompt } from "./prompt.ts";
import { RecordWriter } from "./record_writer.ts";
import { runVerify } from "./verify.ts";
import { pausePoint } from "./pause.ts";
import { findSecrets } from "./secrets.ts";
import { capHit } from "./caps.ts";
import { type Config, loadConfig } from "../store/config.ts";
import { resolvePricing } from "../receipts/pricing.ts";
import { workerCostOf } from "../receipts/receipt.ts";
import { removeView } from "../vcs/view.ts";
import type { TrackedTree } from "./tree.ts";
import { splitChanges } from "./worker_changes.ts";

/** How the chain ended. */
export interface Final {
  outcome: OutcomeClass;
  message?: string;
  answer?: string;
  changes?: Changes;
}

/** What walking needs from the lifecycle. */
export interface WalkOptions {
  backends?: (name: WorkerName) => Backend;
  stop?: AbortSignal;
  /** @default 250 */
  progressEveryMs?: number;
}

/** A summary of what an interrupted attempt did, for the next target. */
export function handoverNote(
  from: Target,
  reason: OutcomeClass,
  events: readonly WorkerEvent[],
  changedFiles: readonly string[],
): string | null {
  const steps = events.flatMap((e) =>
    e.type === "worker.tool_call"
      ? [`- ${e.kind} ${e.target}${e.status === "ok" ? "" : ` (${e.status})`}`]
      : []
  );
  const texts = events.flatMap((e) => (e.type === "worker.text" ? [e.text.trim()] : [])).filter(
    Boolean,
  );
  if (steps.length === 0 && texts.length === 0 && changedFiles.length === 0) return null;
  const lines = [
    `Another worker (${targetLabel(from)}) started this task and was interrupted (${
      reason.replace(/_/g, " ")
    }).`,
    "Continue from where it stopped; do not redo what is already done.",
  ];
  if (steps.length) lines.push("", "Its steps so far:", ...steps.slice(-40));
  if (texts.length) lines.push("", "Its last notes:", texts.at(-1)!.slice(0, 2000));
  if (changedFiles.length) {
    lines.push(
      "",
      "It already changed these files (the changes are in place; check them):",
      ...changedFiles.map((f) => `- ${f}`),
    );
  }
  return lines.join("\n");
}

/** Walks the chain and returns how the run ended. */
export async function walkChain(
  sys: Sys,
  record: RunRecord,
  tree: TrackedTree | null,
  options: WalkOptions,
  emit: (ev: PitroomEvent) => void,
): Promise<Final> {
  const runPaths = statePaths(sys.stateDir).run(record.id);
  await Deno.mkdir(runPaths.private, { recursive: true, mode: 0o700 });
  const prepared = tree ? await prepareTree(sys, record, tree) : null;
  try {
    return await walkPrepared(sys, record, prepared, options, emit);
  } finally {
    prepared?.view?.release();
  }
}

async function walkPrepared(
  sys: Sys,
  record: RunRecord,
  prepared: Prepared | null,
  options: WalkOptions,
  emit: (ev: PitroomEvent) => void,
): Promise<Final> {
  const paths = statePaths(sys.stateDir);
  const runPaths = paths.run(record.id);
  const before = prepared?.before ?? null;
  const work = prepared?.work ?? null;
  const cwd = prepared?.cwd ?? record.cwd;
  const followUp = record.continues !== undefined;
  let prompt = followUp ? record.task : buildPrompt(record.task, record.mode);
  await Deno.writeTextFile(runPaths.prompt, prompt, { mode: 0o600 });
  const deadline = (record.startedAt ?? sys.clock.now()) + record.timeoutMs;
  let last: Final = { outcome: "failed", message: "No worker ran" };
  const writer = new RecordWriter(() => writeRecord(paths, record), {
    everyMs: options.progressEveryMs ?? 250,
    now: () => sys.clock.now(),
  });
  const { config } = await loadConfig(sys.configPath);
  const defaultModels = config.models ?? {};
  const meter = record.caps?.maxCost === undefined ? undefined : costMeter(sys, config, record);
  const cooling = new Map(
    (await activeCooldowns(paths, sys.clock.now())).map((c) => [c.target, c]),
  );

  for (let i = 0; i < record.chain.length; i++) {
    const target = record.chain[i]!;
    const isLast = i === record.chain.length - 1;
    const cool = cooling.get(cooldownKey(target.worker, target.model));
    if (cool && !isLast) {
      (record.skipped ??= []).push({ ...target, until: cool.until });
      emit(
        event("run.skipped", sys.clock.now(), {
          run: record.id,
          target: targetLabel(target),
          until: cool.until,
        }),
      );
      continue;
    }
    let backend: Backend;
    try {
      backend = (options.backends ?? getBackend)(target.worker);
    } catch (error) {
      last = {
        outcome: "refused",
        message: error instanceof Error ? error.message : String(error),
      };
      if (isLast) break;
      continue;
    }
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
      attempt: record.attempts.length,
      ...(target.model ? { model: target.model } : {}),
    }));
    let result;
    // A cap reached stops this attempt like `pitroom stop` would, and ends the chain.
    const capStop = new AbortController();
    let capped: string | null = null;
    const stop = options.stop ? AbortSignal.any([options.stop, capStop.signal]) : capStop.signal;
    const model = target.model ?? defaultModels[target.worker];
    try {
      result = await runAttempt(sys, runPaths, {
        backend,
        runId: record.id,
        attempt: record.attempts.length,
        mode: record.mode,
        prompt,
        cwd,
        web: record.web,
        timeoutMs: Math.max(1, deadline - sys.clock.now()),
        progress: record.progress,
        ...(target.model ? { model: target.model } : {}),
        ...(record.effort ? { effort: record.effort } : {}),
        ...(record.continues ? { sessionId: record.continues.sessionId } : {}),
        ...(record.continues?.sessionTotals ? { priorUsage: record.continues.sessionTotals } : {}),
        stop,
      }, {
        emit,
        progressed(p) {
          if (record.caps && capped === null) {
            capped = capHit(record.caps, p, meter?.(model));
            if (capped !== null) capStop.abort(new Error("cap"));
          }
          if (!writer.soon()) return;
          emit(event("run.progress", sys.clock.now(), {
            run: record.id,
            steps: p.steps,
            tools: p.tools,
            tokens: p.tokens,
            ...(p.last ? { last: p.last } : {}),
          }));
        },
        spawned(pid) {
          attempt.workerPid = pid;
          writer.now().catch(() => undefined);
        },
      });
    } catch (error) {
      // A backend refusing to describe the launch (an effort it cannot set, say) is a refusal
      // for this target, not a crash of the run.
      if (!(error instanceof PitroomError)) throw error;
      attempt.endedAt = sys.clock.now();
      attempt.outcome = "refused";
      attempt.message = error.message;
      last = { outcome: "refused", message: error.message };
      if (isLast) break;
      continue;
    }
    await writer.settle();
    const outcome = capped === null ? result.outcome : {
      class: "capped" as const,
      message: `Stopped at ${capped}; what the worker did is kept`,
    };
    attempt.endedAt = sys.clock.now();
    attempt.outcome = outcome.class;
    attempt.message = outcome.message;
    if (result.sessionId) attempt.sessionId = result.sessionId;
    if (result.sessionTotals) attempt.sessionTotals = result.sessionTotals;
    last = {
      outcome: outcome.class,
      message: outcome.message,
      ...(result.answer === undefined ? {} : { answer: result.answer }),
    };
    if (outcome.class === "rate_limited" || outcome.class === "quota") {
      const now = sys.clock.now();
      await putCooldown(paths, {
        target: cooldownKey(target.worker, target.model),
        until: cooldownUntil(outcome, now),
        reason: outcome.class,
        message: outcome.message,
        run: record.id,
        since: now,
      });
    }
    const next = record.chain.slice(i + 1).find((t, k) => {
      const c = cooling.get(cooldownKey(t.worker, t.model));
      return !c || i + 1 + k === record.chain.length - 1;
    });
    if (!FALLBACK_CLASSES.has(outcome.class) || next === undefined || followUp) break;
    const changed = work && before
      ? (await work.diff(before, (await afterSnapshot(work, before, prepared!.index)).tree)).files
        .map((f) => f.path)
      : [];
    const note = handoverNote(
      target,
      outcome.class,
      result.events,
      record.mode === "read" ? [] : changed,
    );
    if (note) prompt = buildPrompt(record.task, record.mode, { context: note });
    emit(event("run.fallback", sys.clock.now(), {
      run: record.id,
      from: targetLabel(target),
      to: targetLabel(next),
      reason: outcome.class,
      message: outcome.message,
    }));
  }
  await writeRecord(paths, record);
  const collected = await collect(sys, record, prepared, last);
  if (record.verifyCommand === undefined || collected.outcome !== "ok") return collected;
  record.verify = await runVerify(sys, record.verifyCommand, {
    cwd,
    timeoutMs: Math.max(60_000, deadline - sys.clock.now()),
    ...(options.stop ? { stop: options.stop } : {}),
  });
  if (record.verify.ok) return collected;
  const how = record.verify.timedOut
    ? "ran out of time"
    : `exited with ${record.verify.code ?? "a signal"}`;
  return {
    ...collected,
    outcome: "verify_failed",
    message: `Verify \`${record.verifyCommand}\` ${how}`,
  };
}

/** Where the worker works and the snapshot its changes are measured against. */
interface Prepared {
  /** The tree before the worker (the user's; for isolate runs, the state the copy was made at). */
  before: Changes["before"];
  /** The tree the worker changes: the user's, or the private copy. */
  work: TrackedTree;
  /** The worker's directory inside `work`. */
  cwd: string;
  /** The throwaway index of the snapshots of `work`. */
  index: string;
  /** A read run's write-protected view without secret-looking files, when it reads one. */
  view?: TrackedTree & { release(): void; tree: string };
}

/**
 * Snapshots the tree before the worker and, for an isolate run, makes the private copy (or opens
 * the copy of the run it continues). The record names both before anything else happens, so a
 * crash at any later point can still be reverted, applied or discarded.
 */
async function prepareTree(sys: Sys, record: RunRecord, tree: TrackedTree): Promise<Prepared> {
  const paths = statePaths(sys.stateDir);
  const runPaths = paths.run(record.id);
  const isolation = record.isolation;
  const reuse = isolation !== undefined && record.continues !== undefined &&
    record.changes !== undefined;
  const before = reuse
    ? record.changes!.before
    : await tree.snapshot({ indexFile: runPaths.index });
  record.repoRoot = tree.root;
  record.changes = { before, after: before.tree, files: [] };
  await writeRecord(paths, record);
  await pausePoint(sys, "snapshot");
  const inside = async () => relativeInside(tree.root, await Deno.realPath(record.cwd));
  if (isolation === undefined) {
    const plain = { before, work: tree, cwd: record.cwd, index: runPaths.index };
    if (record.mode === "read") return await readFromView(sys, record, tree, plain, inside);
    const secrets = findSecrets(await tree.files(before), before.ignored);
    if (secrets.any) {
      record.notes = [
        `The tree holds secret-looking files (${
          secrets.examples.join(", ")
        }): a write run works in place and can read them; an isolate run (-i) leaves ignored ones out`,
      ];
    }
    return plain;
  }
  const rel = await inside();
  const cwd = rel === "" ? isolation.copyRoot : join(isolation.copyRoot, rel);
  const index = join(runPaths.private, "copy-index");
  if (reuse) {
    if (!(await exists(join(isolation.copyRoot, ".git")))) {
      throw new RefusedError(
        "copy_gone",
        `The private copy of run "${record.continues!.run}" is gone (discarded or cleaned)`,
        { hint: "start a new isolate run instead" },
      );
    }
    return { before, work: tree.openCopy(isolation.copyRoot), cwd, index };
  }
  const secrets = findSecrets(await tree.files(before), []);
  if (secrets.tracked.length > 0) {
    record.notes = [
      `The copy holds tracked secret-looking files (${
        secrets.examples.join(", ")
      }): the worker can read them (ignored ones like .env are left out)`,
    ];
  }
  const work = await tree.copy(isolation.copyRoot, before, isolation.links);
  return { before, work, cwd, index };
}

/**
 * A read run in a tree that holds secret-looking files (`.env`, keys, credentials, ignored ones
 * included) reads a shared, write-protected view of the snapshot without them instead.
 */
async function readFromView(
  sys: Sys,
  record: RunRecord,
  tree: TrackedTree,
  plain: Prepared,
  inside: () => Promise<string>,
): Promise<Prepared> {
  const secrets = findSecrets(await tree.files(plain.before), plain.before.ignored);
  if (!secrets.any) return plain;
  const rel = await inside();
  const view = await tree.view(plain.before, secrets.tracked);
  record.notes = [
    `Secret-looking files (${
      secrets.examples.join(", ")
    }) were kept out: the worker read a write-protected copy of the tree without them`,
  ];
  await writeRecord(statePaths(sys.stateDir), record);
  return { ...plain, cwd: rel === "" ? view.root : join(view.root, rel), view };
}

/** `path` relative to `root` ("" for the root itself); `path` must be inside it. */
export function relativeInside(root: string, path: string): string {
  if (path === root) return "";
  const prefix = root.endsWith("/") ? root : `${root}/`;
  if (!path.startsWith(prefix)) throw new Error(`"${path}" is not inside "${root}"`);
  return path.slice(prefix.length);
}

/** What the run's worker has cost so far at `model`'s price (reported by the CLI, else priced). */
function costMeter(sys: Sys, config: Config, record: RunRecord) {
  const pricing = resolvePricing(config, sys.env, []);
  return (model: string | undefined) => workerCostOf(record, model, pricing).workerCost;
}

/** True when a read view still holds its tree; a changed view is removed (others share it). */
async function viewIntact(
  sys: Sys,
  record: RunRecord,
  view: NonNullable<Prepared["view"]>,
  before: Changes["before"],
): Promise<boolean> {
  const index = join(statePaths(sys.stateDir).run(record.id).private, "view-index");
  const base = { tree: view.tree, head: before.head, bareDirs: [], ignored: before.ignored };
  const seen = await view.snapshot({ base, indexFile: index });
  if (seen.tree === view.tree) return true;
  view.release();
  await removeView(sys, view.root);
  return false;
}

function afterSnapshot(work: TrackedTree, before: Changes["before"], index: string) {
  return work.snapshot({ base: before, indexFile: index });
}

async function collect(
  sys: Sys,
  record: RunRecord,
  prepared: Prepared | null,
  last: Final,
): Promise<Final> {
  if (prepared === null) return last;
  await pausePoint(sys, "collecting");
  const { before, work } = prepared;
  const runPaths = statePaths(sys.stateDir).run(record.id);
  const viewChanged = prepared.view !== undefined &&
    !(await viewIntact(sys, record, prepared.view, before));
  const after = (await afterSnapshot(work, before, prepared.index)).tree;
  if (after === before.tree && viewChanged) {
    return {
      ...last,
      outcome: "read_only_violation",
      message: "The worker changed its read-only view of the tree (the view was removed)",
    };
  }
  if (after === before.tree) {
    return record.mode === "read" ? last : { ...last, changes: { before, after, files: [] } };
  }
  const diff = await work.diff(before, after);
  const changes: Changes = { before, after, files: diff.files };
  if (record.mode !== "isolate") {
    // The user's own edits while the worker worked are listed apart, not as the worker's.
    Object.assign(changes, await splitChanges(sys, record, diff.files, { root: work.root }));
  }
  const patch = changes.others === undefined
    ? diff.patch
    : await work.patch(before, after, changes.files.map((f) => f.path));
  await Deno.writeFile(runPaths.patch, patch, { mode: 0o600 });
  if (record.mode !== "read" || changes.files.length === 0) return { ...last, changes };
  await pausePoint(sys, "reverting");
  await work.revert(before, after, record.id, new Set(changes.files.map((f) => f.path)));
  changes.reverted = true;
  return {
    outcome: "read_only_violation",
    message: `The worker changed ${changes.files.length} file(s) in a read-only run: undone`,
    changes,
    ...(last.answer === undefined ? {} : { answer: last.answer }),
  };
}

/** `formatUntil` re-exported for reports of skipped targets. */
export { formatUntil };
