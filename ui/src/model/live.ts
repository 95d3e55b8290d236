/**
 * Live's state (pure): the cards by run id, the crews they form, the filters and the tiles. The
 * stream's `run` and `event` messages fold into it one at a time (each carries the run's card as
 * the server folded it); nothing here touches the DOM or the network.
 */
import type { RunCard } from "../api/types.ts";
import { type Card, cardTokens, isLive, needsAttention } from "./card.ts";

/** The cards by id. */
export type Cards = ReadonlyMap<string, Card>;

/** The cards with `card` put in (its revision one past the one it replaces). */
export function putCard(cards: Cards, card: RunCard): Cards {
  const out = new Map(cards);
  out.set(card.id, { ...card, rev: (cards.get(card.id)?.rev ?? -1) + 1 });
  return out;
}

/** Newest first. */
export function listCards(cards: Cards): Card[] {
  return [...cards.values()].sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
}

/** Live's filter. */
export interface Filter {
  show: "all" | "running" | "attention";
  /** Only this crew's runs. */
  group: string | null;
  text: string;
}

/** The filter that keeps everything. */
export const ALL: Filter = { show: "all", group: null, text: "" };

/** True when the card passes the filter. */
export function passes(card: RunCard, filter: Filter): boolean {
  if (filter.show === "running" && !isLive(card)) return false;
  if (filter.show === "attention" && !needsAttention(card)) return false;
  if (filter.group !== null && card.group !== filter.group) return false;
  const text = filter.text.trim().toLowerCase();
  if (text === "") return true;
  return [card.id, card.task, card.workerLabel, card.group ?? "", card.last ?? ""]
    .some((s) => s.toLowerCase().includes(text));
}

/** A crew: the runs of one group. */
export interface Crew {
  group: string;
  runs: Card[];
  /** Runs per worker. */
  mix: Array<{ worker: string; runs: number }>;
  done: number;
  problems: number;
  live: number;
  /** Finished runs / all runs. */
  progress: number;
  tokens: number;
  createdAt: number;
}

/** The crews among the cards, newest first. */
export function crewsOf(cards: Card[]): Crew[] {
  const byGroup = new Map<string, Card[]>();
  for (const c of cards) {
    if (c.group === null) continue;
    byGroup.set(c.group, [...(byGroup.get(c.group) ?? []), c]);
  }
  return [...byGroup.entries()].map(([group, runs]) => {
    const mix = new Map<string, number>();
    for (const r of runs) mix.set(r.workerLabel, (mix.get(r.workerLabel) ?? 0) + 1);
    const live = runs.filter(isLive).length;
    const done = runs.filter((r) => r.state === "done").length;
    return {
      group,
      runs: [...runs].sort((a, b) => (a.taskIndex ?? 0) - (b.taskIndex ?? 0)),
      mix: [...mix.entries()].map(([worker, n]) => ({ worker, runs: n }))
        .sort((a, b) => b.runs - a.runs || a.worker.localeCompare(b.worker)),
      done,
      problems: runs.length - live - done,
      live,
      progress: (runs.length - live) / runs.length,
      tokens: runs.reduce((s, r) => s + cardTokens(r), 0),
      createdAt: Math.min(...runs.map((r) => r.createdAt)),
    };
  }).sort((a, b) => b.createdAt - a.createdAt);
}

/** The tiles' figures. */
export interface Tiles {
  running: number;
  finishedToday: number;
  savedWeek: number;
}

/**
 * The tiles: running from the cards (it moves with each event), the rest from the server's
 * summary, plus the runs that ended since the summary was read.
 */
export function tilesOf(
  cards: Card[],
  summary: { at: number; finishedToday: number; savedThisWeek: number } | null,
  today: number,
): Tiles {
  const since = summary?.at ?? -Infinity;
  const ended = cards.filter((c) => c.endedAt !== null && c.endedAt > since);
  return {
    running: cards.filter(isLive).length,
    finishedToday: (summary?.finishedToday ?? 0) +
      ended.filter((c) => c.endedAt! >= today).length,
    savedWeek: (summary?.savedThisWeek ?? 0) + ended.reduce((s, c) => s + (c.saved ?? 0), 0),
  };
}
