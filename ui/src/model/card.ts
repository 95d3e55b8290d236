/**
 * A run's card (pure): what Live shows of a run, built from its report and changed in place by
 * each event of the stream. `rev` grows with every change, so the page can mark what moved.
 */
import type { PitroomEvent, RunReport } from "../api/types.ts";

/** Where a card stands. */
export type CardPhase = "queued" | "running" | "done" | "problem" | "lost";

/** A skipped worker and when it may be tried again. */
export interface Skip {
  target: string;
  until: number;
}

/** A fallback the run took. */
export interface Fallback {
  from: string;
  to: string;
  reason: string;
}

/** One run's card. */
export interface Card {
  id: string;
  task: string;
  mode: string;
  group: string | null;
  phase: CardPhase;
  worker: string;
  model: string | null;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  outcome: string | null;
  message: string | null;
  steps: number;
  tools: number;
  denied: number;
  last: string | null;
  tokens: number;
  cost: number | null;
  saved: number | null;
  changed: number;
  /** An isolate run's patch waits to be applied or discarded. */
  pending: boolean;
  skipped: Skip[];
  fallbacks: Fallback[];
  queuePosition: number | null;
  rev: number;
}

function sumTokens(t: { input: number; output: number; cached: number; reasoning: number }) {
  return t.input + t.output + t.reasoning;
}

/** The card of a report. */
export function cardOf(report: RunReport): Card {
  const last = report.attempts.at(-1) ?? report.chain[0];
  const applied = (report as { applied?: unknown }).applied;
  const discarded = (report as { discarded?: unknown }).discarded;
  const changed = report.changes?.files.length ?? 0;
  return {
    id: report.id,
    task: report.task,
    mode: report.mode,
    group: report.group ?? null,
    phase: report.state,
    worker: last?.worker ?? "-",
    model: last?.model ?? null,
    createdAt: report.createdAt,
    startedAt: report.startedAt ?? null,
    endedAt: report.endedAt ?? null,
    outcome: report.outcome ?? null,
    message: report.message ?? null,
    steps: report.progress.steps,
    tools: report.progress.tools,
    denied: report.progress.denied ?? 0,
    last: report.progress.last ?? null,
    tokens: sumTokens(report.progress.tokens),
    cost: report.progress.cost ?? null,
    saved: report.receipt?.saved ?? null,
    changed,
    pending: report.mode === "isolate" && report.state === "done" && changed > 0 &&
      !applied && !discarded,
    skipped: [],
    fallbacks: report.attempts.slice(0, -1).map((a, i) => ({
      from: label(a),
      to: label(report.attempts[i + 1]!),
      reason: a.outcome ?? "failed",
    })),
    queuePosition: null,
    rev: 0,
  };
}

function label(t: { worker: string; model?: string }): string {
  return t.model ? `${t.worker}:${t.model}` : t.worker;
}

/** A card for a run the stream names before its report arrived. */
export function blankCard(id: string, time: number): Card {
  return {
    id,
    task: "",
    mode: "read",
    group: null,
    phase: "queued",
    worker: "-",
    model: null,
    createdAt: time,
    startedAt: null,
    endedAt: null,
    outcome: null,
    message: null,
    steps: 0,
    tools: 0,
    denied: 0,
    last: null,
    tokens: 0,
    cost: null,
    saved: null,
    changed: 0,
    pending: false,
    skipped: [],
    fallbacks: [],
    queuePosition: null,
    rev: 0,
  };
}

/** The card after one event (a new object when something changed, else the same one). */
export function applyEvent(card: Card, ev: PitroomEvent): Card {
  const next = (patch: Partial<Card>): Card => ({ ...card, ...patch, rev: card.rev + 1 });
  switch (ev.type) {
    case "run.queued":
      return next({ phase: "queued", queuePosition: ev.position });
    case "run.started":
      return next({
        phase: "running",
        worker: ev.worker,
        model: ev.model ?? null,
        startedAt: card.startedAt ?? ev.time,
        queuePosition: null,
      });
    case "run.progress":
      return next({
        steps: ev.steps,
        tools: ev.tools,
        denied: ev.denied ?? card.denied,
        last: ev.last ?? card.last,
        tokens: sumTokens(ev.tokens),
      });
    case "run.skipped":
      return next({ skipped: [...card.skipped, { target: ev.target, until: ev.until }] });
    case "run.fallback":
      return next({
        fallbacks: [...card.fallbacks, { from: ev.from, to: ev.to, reason: ev.reason }],
      });
    case "run.finished":
      return next({
        phase: ev.state,
        outcome: ev.outcome,
        message: ev.message ?? null,
        endedAt: ev.time,
        changed: ev.changed?.length ?? card.changed,
        pending: card.mode === "isolate" && ev.state === "done" && (ev.changed?.length ?? 0) > 0,
      });
    case "run.lost":
      return next({ phase: "lost", message: ev.reason, endedAt: ev.time });
    case "worker.tokens":
      return ev.cost === undefined ? card : next({ cost: (card.cost ?? 0) + ev.cost });
    default:
      return card;
  }
}

/** True while the run is queued or working. */
export function isLive(card: Card): boolean {
  return card.phase === "queued" || card.phase === "running";
}

/** True when a person should look: it failed, was refused something, fell back, or waits. */
export function needsAttention(card: Card): boolean {
  return card.phase === "problem" || card.phase === "lost" || card.denied > 0 ||
    card.fallbacks.length > 0 || card.pending;
}
