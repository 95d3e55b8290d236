/**
 * The live fold (pure): a run's state built from its events (steps, tool calls, last action,
 * tokens, fallbacks, where it stands) and the watch lines a change produces (watch_lines.ts).
 * `watch`, `status`, and later the dashboard and MCP progress all show this view.
 */
import type { EventOf, PitroomEvent } from "../../events/mod.ts";
import type { RunRecord, Target, Tokens } from "../../store/record.ts";
import { targetLabel } from "../core/chain.ts";
import { formatDuration } from "../../sys/duration.ts";
import { formatUntil } from "../core/cooldown.ts";
import { oneLine } from "../../sys/text.ts";
import type { Stall } from "../core/stall.ts";
import { type EndLine, type WatchLine, watchLine, type WatchLineOf } from "./watch_lines.ts";

/** Where a run stands, as the fold sees it. */
export type Phase = "queued" | "running" | "done" | "problem";

/** One fallback the run took. */
export interface FallbackStep {
  from: string;
  to: string;
  reason: string;
}

/** A run as the fold sees it. */
export interface RunView {
  id: string;
  task: string;
  mode: string;
  worker: string;
  phase: Phase;
  position?: number;
  steps: number;
  tools: number;
  last?: string;
  tokens: Tokens;
  fallbacks: FallbackStep[];
  startedAt?: number;
  /** True once a `started` (or `queued`) line said where the run is. */
  announced: boolean;
  /** The final line, once the run ended. */
  end?: EndLine;
  /** Wall time of an ended run. */
  ms?: number;
  /** An ended run's exit code. */
  exit?: number;
  /** An ended run's outcome (`ok`, `failed`, `timeout`, `stopped`, ...). */
  outcome?: string;
  /** While its worker is silent past its stall time: since when, and `stalled (no event for 12m)`. */
  stalled?: { since: number; text: string };
  /** While the run waits for its chain's first cooldown to end (`--park`): until when. */
  parkedUntil?: number;
}

/**
 * A live run's state in words: `parked until 14:05` while it waits (`--park`), `stalled (no event
 * for 10m)` while its worker is silent past its stall time, else its phase.
 */
export function liveState(
  view: Pick<RunView, "phase" | "parkedUntil" | "stalled">,
  now: number,
): string {
  if (view.phase !== "running") return view.phase;
  if (view.parkedUntil !== undefined) return `parked until ${formatUntil(view.parkedUntil, now)}`;
  return view.stalled?.text ?? view.phase;
}

/** Who worked on a run: the last attempt's target (else the chain's first). */
export function workerOf(record: RunRecord): string {
  const target = record.attempts.at(-1) ?? record.chain[0];
  return target ? targetLabel(target) : "-";
}

/** The wall time of a run so far. */
export function runTime(record: RunRecord, now: number): number {
  const start = record.startedAt ?? record.createdAt;
  return (record.endedAt ?? now) - start;
}

/** A run's view from its record alone (what `status` shows without following events). */
export function viewOf(record: RunRecord): RunView {
  const p = record.progress;
  return {
    id: record.id,
    task: oneLine(record.task, 60),
    mode: record.mode,
    worker: workerOf(record),
    phase: record.state === "queued"
      ? "queued"
      : record.state === "running"
      ? "running"
      : record.state === "done"
      ? "done"
      : "problem",
    steps: p.steps,
    tools: p.tools,
    ...(p.last === undefined ? {} : { last: p.last }),
    tokens: { ...p.tokens },
    fallbacks: record.attempts.slice(0, -1).map((a, i) => ({
      from: targetLabel(a),
      to: targetLabel(record.attempts[i + 1]!),
      reason: a.outcome ?? "failed",
    })),
    announced: false,
    ...(record.startedAt === undefined ? {} : { startedAt: record.startedAt }),
    ...(record.parked === undefined || record.state !== "running"
      ? {}
      : { parkedUntil: record.parked.until }),
  };
}

/** The runs of a watch and the lines their events make. */
export class LiveFold {
  #runs = new Map<string, RunView>();

  /** Adds a run (its record as it joined). */
  add(record: RunRecord): RunView {
    const known = this.#runs.get(record.id);
    if (known) return known;
    const view: RunView = {
      ...viewOf(record),
      steps: 0,
      tools: 0,
      tokens: { input: 0, output: 0, cached: 0, reasoning: 0 },
      fallbacks: [],
      phase: record.state === "queued" ? "queued" : "running",
    };
    delete view.last;
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
   * for the caller to throttle). Final events make no line here: see `end()`. Any event is a sign
   * of life: a stalled run's next event ends its stall, and makes at least a `progress` line.
   */
  apply(id: string, ev: PitroomEvent): WatchLine | null {
    const v = this.#runs.get(id);
    if (v === undefined || v.end) return null;
    const stalled = v.stalled !== undefined;
    delete v.stalled;
    const line = this.#fold(id, v, ev);
    return line ??
      (stalled && ev.type !== "run.finished" && ev.type !== "run.lost" ? this.progress(id) : null);
  }

  #fold(id: string, v: RunView, ev: PitroomEvent): WatchLine | null {
    switch (ev.type) {
      case "run.queued":
        v.position = ev.position;
        return watchLine("queued", { run: id, position: ev.position, task: v.task });
      case "run.started": {
        v.worker = targetLabel({
          worker: ev.worker as Target["worker"],
          ...(ev.model ? { model: ev.model } : {}),
        });
        v.phase = "running";
        delete v.parkedUntil;
        v.startedAt ??= ev.time;
        if (v.announced) return null;
        v.announced = true;
        return watchLine("started", { run: id, mode: v.mode, task: v.task });
      }
      case "run.parked":
        v.parkedUntil = ev.until;
        return watchLine("parked", { run: id, until: ev.until });
      case "run.fallback":
        v.fallbacks.push({ from: ev.from, to: ev.to, reason: ev.reason });
        return watchLine("fallback", { run: id, from: ev.from, to: ev.to, reason: ev.reason });
      case "run.progress":
        v.tokens = { ...ev.tokens };
        return null;
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

  /** Marks a run stalled (the feed's `onStall`); returns its `stalled` line. */
  stall(id: string, stall: Stall): WatchLineOf<"stalled"> | null {
    const v = this.#runs.get(id);
    if (v === undefined || v.end) return null;
    v.stalled = { since: stall.since, text: stall.text };
    return watchLine("stalled", { run: id, ...v.stalled });
  }

  /** A run that ended changed (`run.changed`); returns its `changed` line. */
  changed(id: string, ev: EventOf<"run.changed">): WatchLineOf<"changed"> | null {
    const v = this.#runs.get(id);
    if (v === undefined || !v.end) return null;
    return watchLine("changed", {
      run: id,
      by: ev.by,
      ...(ev.work === undefined ? {} : { work: ev.work }),
    });
  }

  /** The run's progress line as it stands. */
  progress(id: string): WatchLineOf<"progress"> | null {
    const v = this.#runs.get(id);
    if (v === undefined) return null;
    return watchLine("progress", {
      run: id,
      steps: v.steps,
      tools: v.tools,
      ...(v.last ? { last: v.last } : {}),
    });
  }

  /**
   * Ends a run from its final event alone, for when its record cannot be read: the line says what
   * the event says (done, or its outcome and exit code), with no summary. A run ended already
   * keeps its line.
   */
  endFromEvent(
    id: string,
    ev: EventOf<"run.finished"> | EventOf<"run.lost">,
  ): EndLine | null {
    const v = this.#runs.get(id);
    if (v === undefined) return null;
    if (v.end) return v.end;
    const ms = Math.max(0, ev.time - (v.startedAt ?? ev.time));
    const changes = ev.type === "run.finished" ? ev.changed ?? [] : [];
    const common = {
      run: id,
      time: formatDuration(ms),
      worker: v.worker,
      summary: oneLine(ev.type === "run.finished" ? ev.message ?? "" : ev.reason, 200),
      ...(changes.length > 0 ? { changes } : {}),
    };
    const line: EndLine = ev.type === "run.finished" && ev.outcome === "ok"
      ? watchLine("done", common)
      : watchLine("problem", {
        ...common,
        outcome: ev.type === "run.lost" ? "lost" : ev.outcome,
        exit: ev.type === "run.lost" ? 1 : ev.exit,
      });
    v.phase = line.event;
    v.ms = ms;
    v.exit = line.event === "done" ? 0 : line.exit;
    v.outcome = line.event === "done" ? "ok" : line.outcome;
    v.end = line;
    return line;
  }

  /** Ends a run from its final record; returns its final line. */
  end(record: RunRecord, now: number): EndLine {
    const v = this.add(record);
    const ms = Math.max(0, runTime(record, now));
    const changes = record.changes?.reverted
      ? []
      : (record.changes?.files ?? []).map((f) => f.path);
    const common = {
      run: record.id,
      time: formatDuration(ms),
      worker: workerOf(record),
      summary: oneLine(
        record.sections?.summary || (record.answer ?? record.message ?? ""),
        200,
      ),
      ...(record.refs ? { refs: refsLabel(record.refs) } : {}),
      ...(changes.length > 0 ? { changes } : {}),
    };
    const line: EndLine = record.outcome === "ok"
      ? watchLine("done", common)
      : watchLine("problem", {
        ...common,
        outcome: record.state === "lost" ? "lost" : record.outcome ?? "failed",
        exit: record.exit ?? 1,
      });
    v.worker = line.worker;
    v.phase = line.event;
    v.ms = ms;
    v.exit = record.exit ?? 1;
    v.outcome = line.event === "done" ? "ok" : line.outcome;
    v.end = line;
    return line;
  }

  /** The lines that describe where every run stands now (after a replay). */
  snapshot(): WatchLine[] {
    const lines: WatchLine[] = [];
    for (const v of this.runs()) {
      if (v.end) lines.push(v.end);
      else if (v.phase === "queued") {
        lines.push(watchLine("queued", {
          run: v.id,
          ...(v.position === undefined ? {} : { position: v.position }),
          task: v.task,
        }));
      } else {
        v.announced = true;
        lines.push(watchLine("started", { run: v.id, mode: v.mode, task: v.task }));
        if (v.steps + v.tools > 0) lines.push(this.progress(v.id)!);
        if (v.stalled) lines.push(watchLine("stalled", { run: v.id, ...v.stalled }));
      }
    }
    return lines;
  }

  /** `all-done` once every run has ended, else null. */
  allDone(): WatchLineOf<"all-done"> | null {
    const runs = this.runs();
    if (runs.length === 0 || runs.some((v) => !v.end)) return null;
    const ok = runs.filter((v) => v.end?.event === "done").length;
    return watchLine("all-done", { runs: runs.length, ok, failed: runs.length - ok });
  }
}

/** `5/5`: the refs of a run as the watch line and the report show them. */
export function refsLabel(refs: { verified: number; total: number }): string {
  return `${refs.verified}/${refs.total}`;
}
