/**
 * Walking a run's worker chain: skip targets that are cooling down (the last one is always
 * tried), run each attempt, put a rate-limited or out-of-quota target into cooldown, and move
 * on for the fallback classes. A target that already did work hands the next one a summary of
 * its steps and, in write mode, the files it changed (its edits stay). The workspace the
 * attempts work in is prepared and collected by `workspace.ts`; a run that ended well is then
 * verified.
 */
import { sandboxSettingOf } from "../../confine/sandboxing.ts";
import { holds } from "../../confine/sandbox/paths.ts";
import type { HeldSys } from "../../store/state.ts";
import { event, type OutcomeClass, type PitroomEvent, type WorkerEvent } from "../../events/mod.ts";
import { activeCooldowns, cooldownKey, putCooldown } from "../../store/cooldown.ts";
import type { Attempt, PriceSettings, RunRecord, Target } from "../../store/record.ts";
import { logFailure } from "../../store/log.ts";
import { PitroomError } from "../../sys/errors.ts";
import type { Backend } from "../../workers/types.ts";
import { findBackend } from "../../workers/find.ts";
import { readAcpWorkers } from "../../workers/acp/config.ts";
import { runAttempt } from "./attempt.ts";
import { targetLabel } from "../core/chain.ts";
import { cooldownUntil, formatUntil } from "../core/cooldown.ts";
import { FALLBACK_CLASSES } from "../core/exit.ts";
import { promptFor } from "./prompt.ts";
import { RecordWriter } from "./record_writer.ts";
import { runVerify } from "./verify.ts";
import { capHit } from "../request/caps.ts";
import { loadConfig } from "../../store/config.ts";
import { resolvePricing } from "../../receipts/pricing.ts";
import { workerCostOf } from "../../receipts/receipt.ts";
import type { TrackedTree } from "../tree/tree.ts";
import {
  changedFiles,
  collectWorkspace,
  prepareWorkspace,
  type Workspace,
} from "../tree/workspace.ts";
import { droppedIndex } from "../../vcs/quick_snapshot.ts";
import type { Final } from "../core/final.ts";
import { runHooks } from "./hooks.ts";
import { MODES } from "../../workers/modes.ts";
import { timingMark } from "../../sys/timing.ts";
import type { Ahead } from "./ahead.ts";

/** What walking needs from the lifecycle. */
export interface WalkOptions {
  backends?: (name: string) => Backend;
  stop?: AbortSignal;
  /** @default 250 */
  progressEveryMs?: number;
  /** Told each time a worker process is spawned. */
  onSpawned?(): void;
  /** What was started as the run was asked for (a foreground run: ahead.ts). */
  ahead?: Pick<Ahead, "dir" | "watch">;
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

/**
 * True when a worker the sandbox let write `writable` (null: no sandbox) could have changed the
 * workspace's tree: a writable folder inside it, or holding it.
 */
async function mayWrite(workspace: Workspace, writable: readonly string[] | null) {
  if (writable === null) return true;
  const root = await Deno.realPath(workspace.work.root);
  return writable.some((folder) => holds(folder, root) || holds(root, folder));
}

/** The targets cooling down now, by their cooldown key. */
async function coolingTargets(sys: HeldSys) {
  const now = sys.clock.now();
  return new Map((await activeCooldowns(sys.state.paths, now)).map((c) => [c.target, c]));
}

/**
 * What a parking run does once a walk of its chain ended: nothing (null) unless the walk ended
 * on a rate limit or quota, or tried no target; then it waits `until` the first target of the
 * chain comes back, or, when that is past its deadline, ends with `final`.
 */
async function parkingFor(
  sys: HeldSys,
  record: RunRecord,
  walked: { ran: boolean; last: Final; deadline: number },
): Promise<{ until: number } | { final: Final } | null> {
  const limited = walked.last.outcome === "rate_limited" || walked.last.outcome === "quota";
  if (walked.ran && !limited) return null;
  const now = sys.clock.now();
  const cooling = await coolingTargets(sys);
  const cools = record.chain.map((t) => cooling.get(cooldownKey(t.worker, t.model)));
  // A target that is not cooling and did not run (its backend refused) is nothing to wait for.
  if (cools.some((c) => c === undefined)) return null;
  const first = cools.reduce((soonest, c) => c!.until < soonest!.until ? c : soonest, cools[0])!;
  const until = first.until;
  if (until < walked.deadline) return { until };
  return {
    final: {
      outcome: first.reason === "quota" ? "quota" : "rate_limited",
      message: `Every worker of the chain is out of quota until ${
        formatUntil(until, now)
      }, after the run's timeout${walked.ran ? `: ${walked.last.message ?? ""}` : ""}`,
    },
  };
}

/**
 * Waits until `until` (the record says so while it waits); false when the run was stopped
 * meanwhile.
 */
async function park(
  sys: HeldSys,
  record: RunRecord,
  until: number,
  options: { emit: (ev: PitroomEvent) => void; stop: AbortSignal | undefined },
): Promise<boolean> {
  const now = sys.clock.now();
  if (until <= now) return true;
  // The wait starts before the record says so: whoever reads it may move time on at once.
  const waiting = new Promise<boolean>((resolve) => {
    const stop = options.stop;
    if (stop?.aborted) return resolve(true);
    const onStop = () => {
      timer.cancel();
      resolve(true);
    };
    const timer = sys.clock.after(until - now, () => {
      stop?.removeEventListener("abort", onStop);
      resolve(false);
    });
    stop?.addEventListener("abort", onStop, { once: true });
  });
  record.parked = { since: now, until };
  options.emit(event("run.parked", now, { run: record.id, until }));
  await sys.state.runs.write(record);
  const stopped = await waiting;
  delete record.parked;
  await sys.state.runs.write(record);
  return !stopped;
}

/** Walks the chain and returns how the run ended. */
export async function walkChain(
  sys: HeldSys,
  record: RunRecord,
  tree: TrackedTree | null,
  options: WalkOptions,
  emit: (ev: PitroomEvent) => void,
): Promise<Final> {
  const runPaths = sys.state.paths.run(record.id);
  await Deno.mkdir(runPaths.private, { recursive: true, mode: 0o700 });
  // The snapshot, and the watch of the ignored files (kept for a read run) beside the rest.
  const ahead = options.ahead?.dir === record.cwd ? options.ahead.watch : undefined;
  const workspace = tree ? await prepareWorkspace(sys, record, tree, ahead) : null;
  timingMark(sys, "prepared");
  try {
    const hooks = await runHooks();
    const cached = workspace ? await hooks.cachedAnswer(sys, record, workspace) : null;
    timingMark(sys, "cache-looked");
    const final = cached ?? await walkPrepared(sys, record, workspace, options, emit);
    if (workspace) {
      await hooks.checkAnswer(sys, record, workspace, final).catch(async (error) => {
        // A check that cannot run leaves the answer as it is, said so, never lost.
        await logFailure(sys, "runs.log", {
          what: `checking the answer of run ${record.id}`,
          error,
        });
        const why = error instanceof Error ? error.message : String(error);
        (record.notes ??= []).push(`The answer's references were not checked: ${why}`);
      });
    }
    timingMark(sys, "checked");
    return final;
  } finally {
    workspace?.view?.release();
    // The watch of a write run's tree ends with the walk, whatever ends it.
    await workspace?.versions?.close();
    // The kept index a snapshot writes in the background ends with the walk, whatever ends it
    // (one never needed is not written).
    await droppedIndex(runPaths.index);
  }
}

async function walkPrepared(
  sys: HeldSys,
  record: RunRecord,
  workspace: Workspace | null,
  options: WalkOptions,
  emit: (ev: PitroomEvent) => void,
): Promise<Final> {
  const paths = sys.state.paths;
  const runPaths = paths.run(record.id);
  const cwd = workspace?.cwd ?? record.cwd;
  const followUp = record.continues !== undefined;
  let prompt = promptFor(record);
  await Deno.writeTextFile(runPaths.prompt, prompt, { mode: 0o600 });
  const deadline = (record.startedAt ?? sys.clock.now()) + record.timeoutMs;
  let last: Final = { outcome: "failed", message: "No worker ran" };
  // Whether a worker could have written the tree (its sandbox left a folder of it writable).
  let reached = false;
  const writer = new RecordWriter(() => sys.state.runs.write(record), {
    everyMs: options.progressEveryMs ?? 250,
    clock: sys.clock,
    onFailure: (error) =>
      logFailure(sys, "runs.log", { what: `writing the progress of run ${record.id}`, error }),
  });
  // The config as it was when the run was created (older records: the config file now).
  const config = record.settings?.config ?? (await loadConfig(sys.configPath)).config;
  const defaultModels = config.models ?? {};
  const meter = record.caps?.maxCost === undefined ? undefined : costMeter(sys, config, record);
  const sandbox = (await sandboxSettingOf(sys, record.settings)).setting;
  // Where the workers run: here, or on the run's host (engine/remote/).
  const launcher = record.host === undefined
    ? undefined
    : await (await runHooks()).launcherFor(sys, record, workspace);
  let cooling = await coolingTargets(sys);

  // One walk of the chain; a parking run (`--park`) walks it again once its wait is over.
  for (;;) {
    let ran = false;
    for (let i = 0; i < record.chain.length; i++) {
      const target = record.chain[i]!;
      const isLast = i === record.chain.length - 1;
      const cool = cooling.get(cooldownKey(target.worker, target.model));
      // The last target is tried although it cools down, unless the run waits for it instead.
      if (cool && (!isLast || record.park === true)) {
        const skipped = (record.skipped ??= []);
        // A parking run walks its chain again: each cooldown is said once.
        const said = skipped.some((s) =>
          s.until === cool.until && targetLabel(s) === targetLabel(target)
        );
        if (said) continue;
        skipped.push({ ...target, until: cool.until });
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
        const found = options.backends
          ? options.backends(target.worker)
          : await findBackend(target.worker, readAcpWorkers(config.workers).workers);
        if (found === undefined) {
          throw new Error(
            `Worker "${target.worker}" is not configured any more (no "workers.${target.worker}" in the config)`,
          );
        }
        backend = found;
      } catch (error) {
        last = {
          outcome: "refused",
          message: error instanceof Error ? error.message : String(error),
        };
        if (isLast) break;
        continue;
      }
      ran = true;
      const attempt: Attempt = {
        worker: target.worker,
        startedAt: sys.clock.now(),
        ...(target.model ? { model: target.model } : {}),
      };
      record.attempts.push(attempt);
      await sys.state.runs.write(record);
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
          ...(record.continues?.sessionTotals
            ? { priorUsage: record.continues.sessionTotals }
            : {}),
          ...(record.isolation
            ? {
              isolation: { links: record.isolation.links, allowLinks: record.allowLinks === true },
            }
            : {}),
          ...(workspace?.secrets === undefined ? {} : { secrets: workspace.secrets }),
          sandbox,
          stop,
          ...(launcher === undefined ? {} : { launcher }),
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
              ...(p.denied ? { denied: p.denied } : {}),
              tokens: p.tokens,
              ...(p.last ? { last: p.last } : {}),
            }));
          },
          spawned(pid) {
            attempt.workerPid = pid;
            writer.now();
            options.onSpawned?.();
          },
          ...(workspace?.ignoredLater === undefined ? {} : {
            // The sandbox lets this worker write the tree after all: its ignored files are
            // walked first, as they would have been before its snapshot.
            async beforeSpawn(writable) {
              if (await mayWrite(workspace, writable)) await workspace.ignoredLater!.start();
            },
          }),
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
      timingMark(sys, "worker-ended");
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
      attempt.sandbox = result.sandbox;
      // A worker that may leave its usage out (an ACP agent) and did: not known, never zero.
      if (backend.reportsTokens === false && !result.tokensReported) {
        record.progress.tokensUnreported = true;
      }
      if (workspace !== null && !reached) reached = await mayWrite(workspace, result.writable);
      if (result.hidden === undefined) delete record.hidden;
      else record.hidden = result.hidden;
      for (const note of result.notes) {
        if (!(record.notes ??= []).includes(note)) record.notes.push(note);
      }
      last = {
        outcome: outcome.class,
        message: outcome.message,
        ...(result.answer === undefined ? {} : { answer: result.answer }),
        ...(result.lost ? { lost: true } : {}),
      };
      // A lost worker (its host's connection dropped) ends the chain: what it did is unknown.
      if (result.lost) break;
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
        return !c || (i + 1 + k === record.chain.length - 1 && record.park !== true);
      });
      if (!FALLBACK_CLASSES.has(outcome.class) || next === undefined || followUp) break;
      const changed = workspace && MODES[record.mode].keepsChanges
        ? await changedFiles(workspace)
        : [];
      const note = handoverNote(target, outcome.class, result.events, changed);
      if (note) prompt = promptFor(record, { context: note });
      emit(event("run.fallback", sys.clock.now(), {
        run: record.id,
        from: targetLabel(target),
        to: targetLabel(next),
        reason: outcome.class,
        message: outcome.message,
      }));
    }
    if (record.park !== true || options.stop?.aborted) break;
    const parking = await parkingFor(sys, record, { ran, last, deadline });
    if (parking === null) break;
    if ("final" in parking) {
      last = parking.final;
      break;
    }
    if (!(await park(sys, record, parking.until, { emit, stop: options.stop }))) {
      last = {
        outcome: "stopped",
        message: `Stopped while parked until ${formatUntil(parking.until, sys.clock.now())}`,
      };
      break;
    }
    cooling = await coolingTargets(sys);
  }
  await sys.state.runs.write(record);
  const collected = await collectWorkspace(sys, record, workspace, last, { reached });
  timingMark(sys, "collected");
  if (record.verifyCommand === undefined || collected.outcome !== "ok") return collected;
  const verified = await runVerify(sys, record.verifyCommand, {
    cwd,
    timeoutMs: Math.max(60_000, deadline - sys.clock.now()),
    ...(options.stop ? { stop: options.stop } : {}),
    run: {
      id: record.id,
      mode: record.mode,
      privateDir: runPaths.private,
      ...(workspace?.secrets === undefined ? {} : { secrets: workspace.secrets }),
      sandbox,
    },
  });
  record.verify = verified.verify;
  for (const note of verified.notes) {
    if (!(record.notes ??= []).includes(note)) record.notes.push(note);
  }
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

/** What the run's worker has cost so far at `model`'s price (reported by the CLI, else priced). */
function costMeter(sys: HeldSys, config: PriceSettings, record: RunRecord) {
  const pricing = resolvePricing(config, sys.env, []);
  return (model: string | undefined) => workerCostOf(record, model, pricing).workerCost;
}
