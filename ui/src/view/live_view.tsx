/** Live: the tiles, the filters, one card per crew and one per run, changing in place. */
import { useEffect, useMemo, useState } from "preact/hooks";
import { fetchRun } from "../api/client.ts";
import type { RunCard as Shape } from "../api/types.ts";
import { isLive } from "../model/card.ts";
import { startOfDay, tokens, usd } from "../model/format.ts";
import { ALL, type Crew, crewsOf, type Filter, listCards, passes, tilesOf } from "../model/live.ts";
import { useStore } from "../store.ts";
import { RunCard } from "./run_card.tsx";

/** A clock that ticks each second while `on`. */
export function useNow(on: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!on) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [on]);
  return now;
}

/** The card of run `id` from the API, or why there is none (nothing while loading). */
function useRunCard(id: string | null): Shape | string | null {
  const [card, setCard] = useState<Shape | string | null>(null);
  useEffect(() => {
    setCard(null);
    if (id === null) return;
    let gone = false;
    fetchRun(id).then((r) => !gone && setCard(r.card))
      .catch((e: unknown) => !gone && setCard(e instanceof Error ? e.message : String(e)));
    return () => void (gone = true);
  }, [id]);
  return typeof card === "string" || card?.id === id ? card : null;
}

/** The Live tab. */
export function LiveView(
  { open, onOpen }: { open: string | null; onOpen: (id: string | null) => void },
) {
  const s = useStore();
  const [filter, setFilter] = useState<Filter>(ALL);
  const listed = useMemo(() => listCards(s.cards), [s.cards]);
  const away = useRunCard(s.ready && open !== null && !s.cards.has(open) ? open : null);
  // A run the address names that Live does not list (an older one) is shown first.
  const all = away !== null && typeof away !== "string" ? [{ ...away, rev: 0 }, ...listed] : listed;
  const anyLive = all.some(isLive);
  const now = useNow(anyLive);
  const tiles = tilesOf(listed, s.summary, startOfDay(now));
  const shown = all.filter((c) => passes(c, filter) || c.id === open);
  const crews = crewsOf(all);
  return (
    <section class="live">
      <div class="tiles">
        <Tile name="Running now" value={String(tiles.running)} id="running" />
        <Tile name="Finished today" value={String(tiles.finishedToday)} id="today" />
        <Tile name="Saved this week" value={usd(tiles.savedWeek)} id="saved" />
      </div>
      {typeof away === "string" && <p class="bad" data-missing>{away}</p>}
      <Filters filter={filter} groups={crews.map((c) => c.group)} onChange={setFilter} />
      {crews.length > 0 && filter.group === null && (
        <div class="crews">
          {crews.map((c) => (
            <CrewCard
              key={c.group}
              crew={c}
              onPick={() => setFilter({ ...filter, group: c.group })}
            />
          ))}
        </div>
      )}
      {shown.length === 0
        ? <p class="empty muted">{all.length === 0 ? "No runs yet." : "No run matches."}</p>
        : (
          <div class="cards">
            {shown.map((c) => (
              <RunCard
                key={c.id}
                card={c}
                open={c.id === open}
                now={now}
                onOpen={() => onOpen(c.id)}
                onClose={() => onOpen(null)}
              />
            ))}
          </div>
        )}
      {!s.ready && <p class="muted" data-connecting>Connecting…</p>}
    </section>
  );
}

function Tile({ name, value, id }: { name: string; value: string; id: string }) {
  return (
    <div class="tile" data-tile={id}>
      <span class="tile-value" key={value}>{value}</span>
      <span class="tile-name">{name}</span>
    </div>
  );
}

function Filters(
  { filter, groups, onChange }: {
    filter: Filter;
    groups: string[];
    onChange: (f: Filter) => void;
  },
) {
  const shows = [["all", "All"], ["running", "Running"], ["attention", "Needs attention"]] as const;
  return (
    <div class="filters" role="toolbar">
      {shows.map(([v, name]) => (
        <button
          type="button"
          key={v}
          class={filter.show === v ? "on" : ""}
          aria-pressed={filter.show === v}
          data-filter={v}
          onClick={() => onChange({ ...filter, show: v })}
        >
          {name}
        </button>
      ))}
      <select
        aria-label="Group"
        value={filter.group ?? ""}
        onChange={(e) => onChange({ ...filter, group: e.currentTarget.value || null })}
      >
        <option value="">All groups</option>
        {groups.map((g) => <option key={g} value={g}>{g}</option>)}
      </select>
      <input
        type="search"
        placeholder="Filter"
        aria-label="Filter text"
        value={filter.text}
        onInput={(e) => onChange({ ...filter, text: e.currentTarget.value })}
      />
    </div>
  );
}

function CrewCard({ crew, onPick }: { crew: Crew; onPick: () => void }) {
  const pct = Math.round(crew.progress * 100);
  return (
    <article class={`crew${crew.live > 0 ? " ph-running" : ""}`} data-group={crew.group}>
      <button type="button" class="crew-head" onClick={onPick}>
        <span class="crew-name">crew {crew.group}</span>
        <span class="muted">{crew.runs.length} runs</span>
      </button>
      <div class="progress" role="progressbar" aria-valuenow={pct}>
        <div style={{ width: `${pct}%` }} />
      </div>
      <div class="card-foot">
        <span>{crew.live} running</span>
        <span class="good">{crew.done} done</span>
        {crew.problems > 0 && <span class="bad">{crew.problems} problems</span>}
        <span>{tokens(crew.tokens)} tok</span>
      </div>
      <div class="mix">
        {crew.mix.map((m) => <span key={m.worker} class="chip">{m.worker} ×{m.runs}</span>)}
      </div>
    </article>
  );
}
