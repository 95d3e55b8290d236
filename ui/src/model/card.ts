/**
 * A run's card on the page (pure): the server's `RunCard` with a revision that grows with every
 * change, so the view can mark what moved; and what the page says about a card.
 */
import type { RunCard } from "../api/types.ts";

/** A card as the page keeps it. */
export type Card = RunCard & { rev: number };

/** True while the run is queued or working. */
export function isLive(card: RunCard): boolean {
  return card.state === "queued" || card.state === "running";
}

/** True when a person should look: it failed, waits to be applied, was refused or fell back. */
export function needsAttention(card: RunCard): boolean {
  return card.attention !== null || card.denied > 0 || card.fallbacks > 0;
}

/** The card's state in a word or two. */
export function stateLabel(card: RunCard): string {
  if (card.state === "queued") {
    return card.position === null ? "queued" : `queued #${card.position}`;
  }
  if (card.state === "running") return card.stalled ?? "running";
  // What became of its work (applied, not applied, cached...) is a badge of its own.
  if (card.state === "done") return "done";
  return card.outcome ?? card.state;
}

/** All tokens a card counts (cached ones are read again, not new work). */
export function cardTokens(card: RunCard): number {
  return card.tokens.input + card.tokens.output + card.tokens.reasoning;
}
