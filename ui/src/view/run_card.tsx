/** One run's card; open, it grows into the run's panel. */
import type { RunCard as Shape } from "../api/types.ts";
import { cardTokens, isLive, stateLabel } from "../model/card.ts";
import { duration, plural, tokens, usd } from "../model/format.ts";
import { Panel } from "./panel.tsx";
import { Badges, DispositionBadge, Points } from "./verdict_view.tsx";

/** How many of a verdict's findings or claims a closed card lists. */
const CARD_POINTS = 3;

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
  // The first verdict with findings or claims lists a few of them on the closed card.
  const pointed = card.verdicts.find((v) => v.points.length > 0);
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
          <div class="card-tags">
            <span class={`pill ph-${card.state}`}>{stateLabel(card)}</span>
            {card.disposition && <DispositionBadge disposition={card.disposition} />}
            <span class="worker">{card.workerLabel}</span>
            <span class="mode">{card.mode}</span>
            {card.group && <span class="mode">crew {card.group}</span>}
          </div>
          <span class="time">{card.startedAt === null && live ? "" : duration(ms)}</span>
        </div>
        <p class="task" data-kind={card.kind}>{card.title || card.id}</p>
        {card.verdicts.length > 0 && (
          <div class="verdicts">
            {card.verdicts.map((v, i) => <Badges key={i} verdict={v} />)}
          </div>
        )}
        {!open && pointed && <Points points={pointed.points} max={CARD_POINTS} />}
        <div class="card-foot">
          <span key={`s${card.steps}`} data-count="steps">{plural(card.steps, "step")}</span>
          <span key={`t${card.tools}`} data-count="tools">{plural(card.tools, "tool")}</span>
          {card.denied > 0 && <span class="bad">{card.denied} denied</span>}
          <span data-count="tokens">{tokens(cardTokens(card))} tok</span>
          {card.changedFiles > 0 && (
            <span data-count="files">{plural(card.changedFiles, "file")}</span>
          )}
          {card.saved !== null && card.saved > 0 && (
            <span class="good" data-saved>saved {usd(card.saved)}</span>
          )}
          {card.saved !== null && card.saved < 0 && (
            <span
              class="warn"
              data-saved
              title={`The worker cost ${usd(-card.saved)} more than the primary model would have`}
            >
              saved {usd(card.saved)}
            </span>
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
