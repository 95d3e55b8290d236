/** History: full-text search with filters and paging; each hit opens as the same card as Live. */
import { useEffect, useState } from "preact/hooks";
import { type HistoryQuery, searchHistory } from "../api/client.ts";
import type { HistoryHit, HistoryResponse, RunCard as Shape } from "../api/types.ts";
import { duration, snippetParts, stamp, when } from "../model/format.ts";
import { useStore } from "../store.ts";
import { RunCard } from "./run_card.tsx";
import { WORKER_NAMES } from "../../../src/workers/names.ts";

const EMPTY: HistoryQuery = { text: "", state: "", model: "", worker: "", period: "", page: 0 };

/**
 * A hit as a card: Live's card when the page has the run, else the one the server sent with it,
 * else one made of the hit itself.
 */
export function hitCard(hit: HistoryHit, known: Shape | undefined): Shape {
  if (known) return known;
  if (hit.card) return hit.card;
  const live = hit.state === "queued" || hit.state === "running";
  return {
    id: hit.id,
    state: hit.state,
    mode: hit.mode,
    task: hit.task,
    kind: "run",
    title: hit.task,
    about: null,
    verdicts: [],
    disposition: null,
    worker: hit.worker,
    model: hit.model,
    workerLabel: hit.worker ? (hit.model ? `${hit.worker} (${hit.model})` : hit.worker) : "-",
    group: hit.group,
    taskIndex: null,
    position: null,
    createdAt: hit.createdAt,
    startedAt: hit.endedAt !== null && hit.durationMs !== null
      ? hit.endedAt - hit.durationMs
      : hit.createdAt,
    endedAt: hit.endedAt,
    steps: 0,
    tools: 0,
    denied: 0,
    last: null,
    tokens: { input: 0, output: 0, cached: 0, reasoning: 0 },
    cost: null,
    saved: hit.saved,
    fallbacks: 0,
    outcome: hit.outcome,
    exit: hit.exit,
    message: hit.outcome === "ok" ? null : hit.message,
    changedFiles: hit.changedFiles,
    isolation: null,
    attention: null,
    canStop: live,
    canDiscard: false,
  };
}

/** The History tab. */
export function HistoryView(
  { open, onOpen }: { open: string | null; onOpen: (id: string | null) => void },
) {
  const s = useStore();
  const [query, setQuery] = useState<HistoryQuery>(EMPTY);
  const [typed, setTyped] = useState("");
  const [result, setResult] = useState<HistoryResponse | null>(null);
  const [shownQuery, setShownQuery] = useState("");
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let gone = false;
    setError(null);
    searchHistory(query).then((r) => {
      if (gone) return;
      setResult(r);
      setShownQuery(query.text);
    })
      .catch((e: unknown) => !gone && setError(String(e)));
    return () => void (gone = true);
  }, [query]);

  const set = (patch: Partial<HistoryQuery>) => setQuery({ ...query, page: 0, ...patch });
  return (
    <section class="history">
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          set({ text: typed });
        }}
      >
        <input
          type="search"
          name="q"
          placeholder="Search tasks, answers and steps"
          aria-label="Search history"
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
        <button type="submit">Search</button>
        <select
          aria-label="State"
          value={query.state}
          onChange={(e) => set({ state: e.currentTarget.value })}
        >
          <option value="">Any state</option>
          <option value="done">Done</option>
          <option value="problem">Problem</option>
          <option value="lost">Lost</option>
        </select>
        <input
          aria-label="Worker"
          placeholder="Worker"
          list="pitroom-workers"
          value={query.worker}
          onChange={(e) => set({ worker: e.currentTarget.value.trim() })}
        />
        <datalist id="pitroom-workers">
          {WORKER_NAMES.map((name) => <option key={name} value={name} />)}
        </datalist>
        <input
          aria-label="Model"
          placeholder="Model"
          value={query.model}
          onChange={(e) => set({ model: e.currentTarget.value.trim() })}
        />
        <select
          aria-label="Period"
          value={query.period}
          onChange={(e) => set({ period: e.currentTarget.value })}
        >
          <option value="">Any time</option>
          <option value="1d">Last day</option>
          <option value="7d">Last 7 days</option>
          <option value="30d">Last 30 days</option>
        </select>
      </form>
      {error && <p class="bad">{error}</p>}
      {result === null
        ? <p class="muted">Searching…</p>
        : result.hits.length === 0
        ? <p class="empty muted">Nothing found.</p>
        : (
          <div class="cards hits" data-query={shownQuery}>
            {result.hits.map((h) => (
              <div class="hit" key={h.id}>
                <RunCard
                  card={hitCard(h, s.cards.get(h.id))}
                  open={h.id === open}
                  now={Date.now()}
                  onOpen={() => onOpen(h.id)}
                  onClose={() => onOpen(null)}
                />
                {h.snippet && (
                  <p class="snippet">
                    <Marked text={h.snippet} />
                  </p>
                )}
                <p class="muted hit-meta">
                  <time title={stamp(h.createdAt)}>{when(h.createdAt, Date.now())}</time>
                  {h.durationMs !== null && ` · ${duration(h.durationMs)}`}
                </p>
              </div>
            ))}
          </div>
        )}
      <nav class="pager">
        <button
          type="button"
          disabled={query.page === 0}
          onClick={() => setQuery({ ...query, page: query.page - 1 })}
        >
          Newer
        </button>
        <span>page {query.page + 1}</span>
        <button
          type="button"
          disabled={!result?.more}
          onClick={() => setQuery({ ...query, page: query.page + 1 })}
        >
          Older
        </button>
      </nav>
    </section>
  );
}

/** A snippet whose matches are between U+E000 and U+E001. */
function Marked({ text }: { text: string }) {
  return <>{snippetParts(text).map((p, i) => (p.match ? <mark key={i}>{p.text}</mark> : p.text))}
  </>;
}
