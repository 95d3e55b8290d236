/**
 * Live's state (pure): the cards by run id, the crews they form, the filters and the tiles. The
 * stream's events fold into it one at a time; nothing here touches the DOM or the network.
 */
import type { PitroomEvent } from "../api/types.ts";
import { applyEvent, blankCard, type Card, isLive, needsAttention } from "./card.ts";
import { startOfDay } from "./format.ts";

/** The cards, newest first when listed. */
export type Cards = ReadonlyMap<string, Card>;

/** Folds one stream event into the cards (the same map when nothing changed). */
export function foldEvent(cards: Cards, run: string, ev: PitroomEvent): Cards {
  const card = cards.get(run) ?? blankCard(run, ev.time);
  const next = applyEvent(card, ev);
  if (next === card && cards.has(run)) return cards;
  const out = new Map(cards);
  out.set(run, next);
  return out;
}

/** Puts cards in (a fresher report replaces what the stream had built). */
export function putCards(cards: Cards, fresh: Card[]): Cards {
  const out = new Map(cards);
  for (const c of fresh) {
    const known = out.get(c.id);
    out.set(c.id, known ? { ...c, rev: known.rev + 1, skipped: known.skipped } : c);
  }
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
export function passes(card: Card, filter: Filter): boolean {
  if (filter.show === "running" && !isLive(card)) return false;
  if (filter.show === "attention" && !needsAttention(card)) return false;
  if (filter.group !== null && card.group !== filter.group) return false;
  const text = filter.text.trim().toLowerCase();
  if (text === "") return true;
  return [card.id, card.task, card.worker, card.model ?? "", card.group ?? "", card.last ?? ""]
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
    for (const r of runs) mix.set(r.worker, (mix.get(r.worker) ?? 0) + 1);
    const live = runs.filter(isLive).length;
    const done = runs.filter((r) => r.phase === "done").length;
    return {
      group,
      runs,
      mix: [...mix.entries()].map(([worker, n]) => ({ worker, runs: n }))
        .sort((a, b) => b.runs - a.runs || a.worker.localeCompare(b.worker)),
      done,
      problems: runs.length - live - done,
      live,
      progress: (runs.length - live) / runs.length,
      createdAt: Math.min(...runs.map((r) => r.createdAt)),
    };
  }).sort((a, b) => b.createdAt - a.createdAt);
}

/** The tiles' figures. */
export interface Tiles {
  running: number;
  finishedToday: number;
  /** Savings of the week, in dollars (from the API when it said, else from the cards). */
  savedWeek: number;
}

/** The tiles of the cards at `now`; `savedWeek` from the savings API when known. */
export function tilesOf(cards: Card[], now: number, savedWeek: number | null): Tiles {
  const today = startOfDay(now);
  const week = now - 7 * 86_400_000;
  return {
    running: cards.filter(isLive).length,
    finishedToday: cards.filter((c) => c.endedAt !== null && c.endedAt >= today).length,
    savedWeek: savedWeek ??
      cards.reduce((s, c) => s + (c.endedAt !== null && c.endedAt >= week ? c.saved ?? 0 : 0), 0),
  };
}
