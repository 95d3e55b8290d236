/** One run's card; open, it grows into the run's panel. */
import type { RunCard as Shape } from "../api/types.ts";
import { cardTokens, isLive, stateLabel } from "../model/card.ts";
import { duration, tokens, usd } from "../model/format.ts";
import { Panel } from "./panel.tsx";

/** A run's card. `now` makes a running card's clock tick. */
export function RunCard(
  { card, open, now, onOpen, onClose }: {
    card: Shape & { rev?: number };
    open: boolean;
    now: number;
    onOpen: () => void;
    onClose: () => void;
  },
) {
  const live = isLive(card);
  const ms = (card.endedAt ?? now) - (card.startedAt ?? card.createdAt);
  const toggle = open ? onClose : onOpen;
  return (
    <article
      class={`card ph-${card.state}${open ? " open" : ""}`}
      data-run={card.id}
      data-state={card.state}
      data-rev={card.rev ?? 0}
    >
      <div
        class="card-head"
        role="button"
        tabIndex={0}
        aria-expanded={open}
        onClick={toggle}
        onKeyDown={(e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            toggle();
          }
        }}
      >
        <div class="card-top">
          <span class={`pill ph-${card.state}`}>{stateLabel(card)}</span>
          <span class="worker">{card.workerLabel}</span>
          <span class="mode">{card.mode}</span>
          {card.group && <span class="mode">crew {card.group}</span>}
          <span class="time">{card.startedAt === null && live ? "" : duration(ms)}</span>
        </div>
        <p class="task">{card.task || card.id}</p>
        <div class="card-foot">
          <span key={`s${card.steps}`} data-count="steps">{card.steps} steps</span>
          <span key={`t${card.tools}`} data-count="tools">{card.tools} tools</span>
          {card.denied > 0 && <span class="bad">{card.denied} denied</span>}
          <span>{tokens(cardTokens(card))} tok</span>
          {card.changedFiles > 0 && <span>{card.changedFiles} files</span>}
          {card.saved !== null && card.saved > 0 && (
            <span class="good">saved {usd(card.saved)}</span>
          )}
          {card.fallbacks > 0 && <span class="warn">fell back ×{card.fallbacks}</span>}
          {!live && card.message && <span class="bad msg" title={card.message}>{card.message}
          </span>}
        </div>
        {live && card.last && <p class="last" key={card.last}>{card.last}</p>}
        {live && <div class="live-bar" />}
      </div>
      {open && <Panel id={card.id} card={card} />}
    </article>
  );
}
