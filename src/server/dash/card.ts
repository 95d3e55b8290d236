/**
 * A run's card (the live view, `RunCard`): built from its record (what the run is, its verdicts
 * and what became of its work: card_kind.ts), then kept current by the events
 * that follow (pure). `run.progress` events carry the engine's cumulative counts and overwrite
 * the card's; the worker events between them move the counts on at once, so a card changes the
 * moment a tool call is written. A final event is followed by the final record (`cardOf`), and so
 * is a `run.changed` (an apply, a revert, a discard, an audit or review after the run's end),
 * whose fold says at once what became of the run's work. A run's stall (`stalled`) is read off its record at `now`, or told by the feed, and any event of
 * the run clears it.
 */
import { MODES, type PitroomEvent, type RunReport } from "../../engine/mod.ts";
import { formatUntil, stallOf, targetLabel } from "../../engine/present.ts";
import type { ApiAttention, ApiWorker, RunCard } from "./api_types.ts";
import { dispositionOf, kindOf, verdictsOf } from "./card_kind.ts";

const LIVE = new Set(["queued", "running"]);

/** The card of a run as its record is at `now`. */
export function cardOf(record: RunReport, now: number): RunCard {
  const target = record.attempts.at(-1) ?? record.chain[0];
  const p = record.progress;
  const live = LIVE.has(record.state);
  const iso = record.isolation;
  const stall = stallOf(record, now);
  const changed = record.changes?.reverted ? 0 : record.changes?.files.length ?? 0;
  const isolation = MODES[record.mode].usesCopy && iso !== undefined
    ? { applied: iso.applied !== undefined, discarded: iso.discarded !== undefined }
    : null;
  return {
    id: record.id,
    state: record.state,
    mode: record.mode,
    task: record.task,
    ...kindOf(record),
    verdicts: verdictsOf(record),
    disposition: dispositionOf(record),
    worker: target?.worker ?? null,
    model: record.receipt?.model ?? target?.model ?? null,
    // A run on a host says where: `codex on box`.
    workerLabel: (target ? targetLabel(target) : "-") +
      (record.host === undefined ? "" : ` on ${record.host}`),
    group: record.group ?? null,
    taskIndex: record.taskIndex ?? null,
    position: null,
    createdAt: record.createdAt,
    startedAt: record.startedAt ?? null,
    endedAt: record.endedAt ?? null,
    steps: p.steps,
    tools: p.tools,
    denied: p.denied ?? 0,
    last: record.parked !== undefined && record.state === "running"
      ? parkedText(record.parked.until)
      : p.last ?? null,
    ...(stall === null ? {} : { stalled: stall.text }),
    tokens: { ...p.tokens },
    cost: record.receipt?.workerCost ?? p.cost ?? null,
    saved: record.receipt?.saved ?? null,
    fallbacks: Math.max(0, record.attempts.length - 1),
    outcome: record.outcome ?? null,
    exit: record.exit ?? null,
    message: record.outcome === "ok" ? null : record.message ?? null,
    changedFiles: changed,
    isolation,
    attention: attentionOf(record, isolation, changed),
    canStop: live,
    canDiscard: !live && isolation !== null && !isolation.applied && !isolation.discarded,
  };
}

function attentionOf(
  record: RunReport,
  isolation: RunCard["isolation"],
  changed: number,
): ApiAttention | null {
  if (record.state === "problem" || record.state === "lost") return "problem";
  if (
    record.state === "done" && isolation !== null && !isolation.applied &&
    !isolation.discarded && changed > 0
  ) return "unapplied";
  return null;
}

/** The card of a run that is replayed from its first event: counts start at nothing. */
export function freshCard(record: RunReport): RunCard {
  return {
    ...withoutStall(cardOf(record, record.createdAt)),
    steps: 0,
    tools: 0,
    denied: 0,
    last: null,
    tokens: { input: 0, output: 0, cached: 0, reasoning: 0 },
    cost: null,
  };
}

/** What a parked run's card says it does (`--park`). */
function parkedText(until: number): string {
  return `parked until ${
    formatUntil(until, Date.now())
  }: every worker of its chain is out of quota`;
}

/**
 * The card after one more event (a new object; the final state comes with the final record). Any
 * event is a sign of life: a stall ends with it.
 */
export function foldCard(moved: RunCard, ev: PitroomEvent): RunCard {
  const card = withoutStall(moved);
  switch (ev.type) {
    case "run.queued":
      return { ...card, state: "queued", position: ev.position };
    case "run.started":
      return {
        ...card,
        state: "running",
        position: null,
        worker: ev.worker as ApiWorker,
        model: ev.model ?? null,
        workerLabel: targetLabel({
          worker: ev.worker as ApiWorker,
          ...(ev.model === undefined ? {} : { model: ev.model }),
        }),
        startedAt: card.startedAt ?? ev.time,
      };
    case "run.parked":
      return { ...card, last: parkedText(ev.until) };
    case "run.fallback":
      return { ...card, fallbacks: card.fallbacks + 1 };
    case "run.progress":
      return {
        ...card,
        steps: ev.steps,
        tools: ev.tools,
        denied: ev.denied ?? 0,
        last: ev.last ?? card.last,
        tokens: { ...ev.tokens },
      };
    case "worker.step":
      return { ...card, steps: card.steps + 1 };
    case "worker.tool_call":
      return {
        ...card,
        tools: card.tools + 1,
        denied: card.denied + (ev.status === "denied" ? 1 : 0),
        last: `${ev.kind} ${ev.target}`.trim(),
      };
    case "worker.tokens":
      return {
        ...card,
        tokens: {
          input: card.tokens.input + ev.input,
          output: card.tokens.output + ev.output,
          cached: card.tokens.cached + ev.cached,
          reasoning: card.tokens.reasoning + ev.reasoning,
        },
        cost: ev.cost === undefined ? card.cost : (card.cost ?? 0) + ev.cost,
      };
    case "run.finished":
      return {
        ...card,
        state: ev.state,
        outcome: ev.outcome,
        exit: ev.exit,
        message: ev.outcome === "ok" ? null : ev.message ?? null,
        canStop: false,
        endedAt: ev.time,
      };
    case "run.changed": {
      // What became of its work now; the rest (counts, verdicts) comes with its record.
      const work = ev.work ?? null;
      const isolation = card.isolation === null ? null : {
        applied: work === "applied" || (card.isolation.applied && work !== "not-applied"),
        discarded: work === "discarded" || card.isolation.discarded,
      };
      return {
        ...card,
        disposition: work,
        isolation,
        attention: card.attention === "unapplied" && work !== "not-applied" ? null : card.attention,
        canDiscard: isolation !== null && !isolation.applied && !isolation.discarded,
      };
    }
    case "run.lost":
      return {
        ...card,
        state: "lost",
        message: ev.reason,
        canStop: false,
        attention: "problem",
        endedAt: ev.time,
      };
    default:
      return card;
  }
}

/** The card without a stall (as it is before its events come, and after each). */
function withoutStall(card: RunCard): RunCard {
  if (card.stalled === undefined) return card;
  const { stalled: _, ...rest } = card;
  return rest;
}

/** True for the events that end a run. */
export function isFinalEvent(ev: PitroomEvent): boolean {
  return ev.type === "run.finished" || ev.type === "run.lost";
}
