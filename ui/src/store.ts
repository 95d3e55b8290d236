/**
 * The page's live data: the cards, kept by the one event stream (each `run` and `event` message
 * carries the run's card), the tiles' summary, and, for an open panel, each event of its run as
 * it arrives. Views subscribe; nothing polls.
 */
import { useEffect, useState } from "preact/hooks";
import { fetchSummary, openStream } from "./api/client.ts";
import type { PitroomEvent, SummaryResponse } from "./api/types.ts";
import { type Cards, putCard } from "./model/live.ts";

type Listener = () => void;

const FINAL = new Set(["run.finished", "run.lost"]);

class LiveStore {
  cards: Cards = new Map();
  summary: (SummaryResponse & { at: number }) | null = null;
  /** True once the stream's start-up replay is done (and while it stays connected). */
  ready = false;
  #listeners = new Set<Listener>();
  #runListeners = new Map<string, Set<(ev: PitroomEvent) => void>>();
  #started = false;
  /** Between `hello` and `ready`: the replay's cards are drawn once, at `ready`. */
  #replaying = true;

  start(): void {
    if (this.#started) return;
    this.#started = true;
    openStream({
      hello: () => {
        this.#replaying = true;
      },
      run: ({ card }) => {
        this.cards = putCard(this.cards, card);
        if (!this.#replaying) this.#emit();
      },
      event: ({ run, event, card }) => {
        this.cards = putCard(this.cards, card);
        for (const fn of this.#runListeners.get(run) ?? []) fn(event);
        if (!this.#replaying) this.#emit();
        // (A run that changes after its end, a review's verdict on the reviewed run included,
        // comes as its own `run.changed` event with its card.)
        if (FINAL.has(event.type) || event.type === "run.changed") void this.#refreshSummary();
      },
      ready: () => {
        this.#replaying = false;
        this.ready = true;
        this.#emit();
        void this.#refreshSummary();
      },
    }, () => {
      this.ready = false;
      this.#emit();
    });
  }

  async #refreshSummary(): Promise<void> {
    const s = await fetchSummary().catch(() => null);
    if (s === null) return;
    this.summary = { ...s, at: s.now };
    this.#emit();
  }

  subscribe(fn: Listener): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Calls `fn` with each new event of `run`. */
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
