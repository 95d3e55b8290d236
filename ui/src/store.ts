/**
 * The page's live data: the cards (from the runs API, then the event stream) and, for an open
 * panel, each event of its run as it arrives. One stream for the whole page; views subscribe.
 */
import { useEffect, useState } from "preact/hooks";
import {
  fetchReport,
  fetchRuns,
  fetchSavedWeek,
  openStream,
  type StreamEvent,
} from "./api/client.ts";
import type { PitroomEvent } from "./api/types.ts";
import { cardOf } from "./model/card.ts";
import { type Cards, foldEvent, putCards } from "./model/live.ts";

type Listener = () => void;

class LiveStore {
  cards: Cards = new Map();
  savedWeek: number | null = null;
  connected = false;
  #listeners = new Set<Listener>();
  #runListeners = new Map<string, Set<(ev: PitroomEvent) => void>>();
  #started = false;

  start(): void {
    if (this.#started) return;
    this.#started = true;
    openStream((ev) => this.#onEvent(ev), () => {
      this.connected = true;
      void this.refresh();
    });
  }

  async refresh(): Promise<void> {
    const [runs, saved] = await Promise.all([
      fetchRuns(),
      fetchSavedWeek().catch(() => null),
    ]);
    this.cards = putCards(this.cards, runs.map(cardOf));
    this.savedWeek = saved;
    this.#emit();
  }

  #onEvent({ run, event }: StreamEvent): void {
    const known = this.cards.has(run);
    this.cards = foldEvent(this.cards, run, event);
    for (const fn of this.#runListeners.get(run) ?? []) fn(event);
    this.#emit();
    // A run the page had not seen: its report brings the task and the rest.
    if (!known || event.type === "run.finished") void this.#refreshOne(run);
  }

  async #refreshOne(run: string): Promise<void> {
    const report = await fetchReport(run).catch(() => null);
    if (report === null) return;
    const fresh = cardOf(report);
    const known = this.cards.get(run);
    // Events the stream folded in after the report was read stay (the report is older then).
    if (known && known.phase !== "queued" && fresh.phase === "queued") return;
    this.cards = putCards(this.cards, [fresh]);
    this.#emit();
  }

  subscribe(fn: Listener): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  onRun(run: string, fn: (ev: PitroomEvent) => void): () => void {
    const set = this.#runListeners.get(run) ?? new Set();
    set.add(fn);
    this.#runListeners.set(run, set);
    return () => set.delete(fn);
  }

  #emit(): void {
    for (const fn of this.#listeners) fn();
  }
}

/** The page's one store. */
export const store = new LiveStore();

/** Re-renders the caller when the store changes. */
export function useStore(): LiveStore {
  const [, setTick] = useState(0);
  useEffect(() => {
    store.start();
    return store.subscribe(() => setTick((n) => n + 1));
  }, []);
  return store;
}
