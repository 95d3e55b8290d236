/** One run's card; open, it grows into the run's panel. */
import type { Card } from "../model/card.ts";
import { isLive } from "../model/card.ts";
import { duration, tokens, usd } from "../model/format.ts";
import { Panel } from "./panel.tsx";

function stateLabel(card: Card): string {
  if (card.phase === "queued") {
    return card.queuePosition === null ? "queued" : `queued #${card.queuePosition}`;
  }
  if (card.phase === "running") return "running";
  if (card.phase === "done") return card.pending ? "done · not applied" : "done";
  return card.outcome ?? card.phase;
}

/** A run's card. `now` makes a running card's clock tick. */
export function RunCard(
  { card, open, now, onOpen, onClose }: {
    card: Card;
    open: boolean;
    now: number;
    onOpen: () => void;
    onClose: () => void;
  },
) {
  const start = card.startedAt ?? card.createdAt;
  const ms = (card.endedAt ?? now) - start;
  return (
    <article
      class={`card ph-${card.phase}${open ? " open" : ""}`}
      data-run={card.id}
      data-phase={card.phase}
      data-rev={card.rev}
    >
      <div
        class="card-head"
        role="button"
        tabIndex={0}
        aria-expanded={open}
        onClick={open ? onClose : onOpen}
        onKeyDown={(e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            (open ? onClose : onOpen)();
          }
        }}
      >
        <div class="card-top">
          <span class={`pill ph-${card.phase}`}>{stateLabel(card)}</span>
          <span class="worker">{card.model ? `${card.worker}:${card.model}` : card.worker}</span>
          <span class="mode">{card.mode}</span>
          <span class="time">{card.startedAt === null && isLive(card) ? "" : duration(ms)}</span>
        </div>
        <p class="task">{card.task || card.id}</p>
        <div class="card-foot">
          <span class="steps" key={`s${card.steps}`}>{card.steps} steps</span>
          <span>{card.tools} tools</span>
          {card.denied > 0 && <span class="bad">{card.denied} denied</span>}
          <span>{tokens(card.tokens)} tok</span>
          {card.changed > 0 && <span>{card.changed} files</span>}
          {card.saved !== null && <span class="good">saved {usd(card.saved)}</span>}
          {card.fallbacks.length > 0 && <span class="warn">fell back</span>}
          {card.skipped.length > 0 && <span class="warn">{card.skipped.length} skipped</span>}
        </div>
        {isLive(card) && card.last && <p class="last" key={card.last}>{card.last}</p>}
        {isLive(card) && <div class="live-bar" />}
      </div>
      {open && <Panel id={card.id} card={card} />}
    </article>
  );
}
