/**
 * What `watch` makes of the feed (pure): each run's events folded into its state, and the lines
 * a change produces: `queued`, `started`, `progress`, `fallback`, one final line (`done`,
 * `failed`, `timeout` or `stopped`) and, once every run has ended, `all-done`. The shapes are
 * the `watch --json` contract.
 */
import { targetLabel } from "../engine/chain.ts";
import type { PitroomEvent } from "../events/mod.ts";
import type { RunRecord, Target } from "../store/record.ts";
import { formatDuration } from "./duration.ts";
import { oneLine } from "../sys/text.ts";

/** How a run ended, as `watch` names it. */
export type EndKind = "done" | "failed" | "timeout" | "stopped";

/** One line of `watch --json`. */
export type WatchLine =
  | { type: "queued"; run: string; position?: number; task: string }
  | { type: "started"; run: string; mode: string; worker: string; task: string }
  | { type: "progress"; run: string; steps: number; tools: number; last?: string }
  | { type: "fallback"; run: string; from: string; to: string; reason: string }
  | {
    type: EndKind;
    run: string;
    /** Wall time, `21s`. */
    time: string;
    ms: number;
    worker: string;
    /** The answer (or what went wrong), on one line. */
    summary: string;
    /** Files the run changed. */
    changes: string[];
    exit: number;
  }
  | { type: "all-done"; runs: number; ok: number; failed: number };

/** A run as `watch` sees it. */
export interface RunView {
  id: string;
  task: string;
  mode: string;
  worker: string;
  phase: "queued" | "running" | EndKind;
  position?: number;
  steps: number;
  tools: number;
  last?: string;
  startedAt?: number;
  /** True once a `started` (or `queued`) line said where the run is. */
  announced: boolean;
  /** The final line, once the run ended. */
  end?: Extract<WatchLine, { type: EndKind }>;
}

function endKind(record: RunRecord): EndKind {
  if (record.outcome === "ok") return "done";
  if (record.outcome === "timeout") return "timeout";
  if (record.outcome === "stopped") return "stopped";
  return "failed";
}

function workerOf(record: RunRecord): string {
  const target = record.attempts.at(-1) ?? record.chain[0];
  return target ? targetLabel(target) : "-";
}

/** The runs of a watch and the lines their events make. */
export class CrewView {
  #runs = new Map<string, RunView>();

  /** Adds a run (its record as it joined). */
  add(record: RunRecord): RunView {
    const known = this.#runs.get(record.id);
    if (known) return known;
    const view: RunView = {
      id: record.id,
      task: oneLine(record.task, 60),
      mode: record.mode,
      worker: workerOf(record),
      phase: record.state === "queued" ? "queued" : "running",
      steps: 0,
      tools: 0,
      announced: false,
      ...(record.startedAt === undefined ? {} : { startedAt: record.startedAt }),
    };
    this.#runs.set(record.id, view);
    return view;
  }

  /** Every run, in id (start) order. */
  runs(): RunView[] {
    return [...this.#runs.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  /** One run. */
  get(id: string): RunView | undefined {
    return this.#runs.get(id);
  }

  /**
   * Folds one event into its run; returns the line it makes now, if any (`progress` lines are
   * for the caller to throttle). Final events make no line here: see `end()`.
   */
  apply(id: string, ev: PitroomEvent): WatchLine | null {
    const v = this.#runs.get(id);
    if (v === undefined || v.end) return null;
    switch (ev.type) {
      case "run.queued":
        v.position = ev.position;
        return { type: "queued", run: id, position: ev.position, task: v.task };
      case "run.started": {
        v.worker = targetLabel({
          worker: ev.worker as Target["worker"],
          ...(ev.model ? { model: ev.model } : {}),
        });
        v.phase = "running";
        v.startedAt ??= ev.time;
        if (v.announced) return null;
        v.announced = true;
        return { type: "started", run: id, mode: v.mode, worker: v.worker, task: v.task };
      }
      case "run.fallback":
        return { type: "fallback", run: id, from: ev.from, to: ev.to, reason: ev.reason };
      case "worker.step":
        v.steps++;
        return this.progress(id);
      case "worker.tool_call":
        v.tools++;
        v.last = oneLine(`${ev.kind} ${ev.target}`, 80);
        return this.progress(id);
      default:
        return null;
    }
  }

  /** The run's progress line as it stands. */
  progress(id: string): WatchLine | null {
    const v = this.#runs.get(id);
    if (v === undefined) return null;
    return {
      type: "progress",
      run: id,
      steps: v.steps,
      tools: v.tools,
      ...(v.last ? { last: v.last } : {}),
    };
  }

  /** Ends a run from its final record; returns its final line. */
  end(record: RunRecord, now: number): Extract<WatchLine, { type: EndKind }> {
    const v = this.add(record);
    const start = record.startedAt ?? record.createdAt;
    const ms = Math.max(0, (record.endedAt ?? now) - start);
    const line = {
      type: endKind(record),
      run: record.id,
      time: formatDuration(ms),
      ms,
      worker: workerOf(record),
      summary: oneLine(record.answer ?? record.message ?? "", 200),
      changes: record.changes?.reverted ? [] : (record.changes?.files ?? []).map((f) => f.path),
      exit: record.exit ?? 1,
    } satisfies WatchLine;
    v.worker = line.worker;
    v.phase = line.type;
    v.end = line;
    return line;
  }

  /** The lines that describe where every run stands now (after a replay). */
  snapshot(): WatchLine[] {
    const lines: WatchLine[] = [];
    for (const v of this.runs()) {
      if (v.end) lines.push(v.end);
      else if (v.phase === "queued") {
        lines.push({
          type: "queued",
          run: v.id,
          ...(v.position === undefined ? {} : { position: v.position }),
          task: v.task,
        });
      } else {
        v.announced = true;
        lines.push({ type: "started", run: v.id, mode: v.mode, worker: v.worker, task: v.task });
        if (v.steps + v.tools > 0) lines.push(this.progress(v.id)!);
      }
    }
    return lines;
  }

  /** `all-done` once every run has ended, else null. */
  allDone(): WatchLine | null {
    const runs = this.runs();
    if (runs.length === 0 || runs.some((v) => !v.end)) return null;
    const ok = runs.filter((v) => v.end?.type === "done").length;
    return { type: "all-done", runs: runs.length, ok, failed: runs.length - ok };
  }
}
