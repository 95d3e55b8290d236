/**
 * The page's calls to the dashboard's API (src/server/dash/README.md): JSON reads, the one event
 * stream, and the two writes, each carrying the secret the page was served with.
 */
import type {
  EventsResponse,
  HistoryResponse,
  PitroomEvent,
  RunResponse,
  Stats,
  StreamMessages,
  SummaryResponse,
} from "./types.ts";
import { historyParams, type HistoryQuery } from "./query.ts";

export { type HistoryQuery, PAGE_SIZE } from "./query.ts";

/** The secret of this page, from its `<meta name="pitroom-secret">`. */
function secret(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="pitroom-secret"]')?.content ?? "";
}

async function failure(res: Response, what: string): Promise<Error> {
  const body = await res.json().catch(() => null) as { error?: { message?: string } } | null;
  return new Error(`${what} failed: ${body?.error?.message ?? res.statusText}`);
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: "application/json" } });
  if (!res.ok) throw await failure(res, `Loading ${path}`);
  return await res.json() as T;
}

/** One run's card and report. */
export function fetchRun(id: string): Promise<RunResponse> {
  return getJson<RunResponse>(`/api/runs/${encodeURIComponent(id)}`);
}

/** One run's events so far. */
export function fetchEvents(id: string): Promise<PitroomEvent[]> {
  return getJson<EventsResponse>(`/api/runs/${encodeURIComponent(id)}/events`)
    .then((r) => r.events);
}

/** One run's patch (empty when it has none). */
export async function fetchPatch(id: string): Promise<string> {
  const res = await fetch(`/api/runs/${encodeURIComponent(id)}/patch`);
  if (res.status === 404) return "";
  if (!res.ok) throw await failure(res, "Loading the patch");
  return await res.text();
}

/** The Live tab's tiles. */
export function fetchSummary(): Promise<SummaryResponse> {
  return getJson<SummaryResponse>("/api/summary");
}

/** One page of history hits. */
export function searchHistory(q: HistoryQuery): Promise<HistoryResponse> {
  return getJson<HistoryResponse>(`/api/history?${historyParams(q)}`);
}

/** The stats of a period (`7d`, `30d`, `all`). */
export function fetchStats(period: string): Promise<Stats> {
  return getJson<Stats>(`/api/stats?since=${encodeURIComponent(period)}`);
}

/** Stops a running run, or discards a finished isolate run's copy. */
export async function act(id: string, action: "stop" | "discard"): Promise<void> {
  const res = await fetch(`/api/runs/${encodeURIComponent(id)}/${action}`, {
    method: "POST",
    headers: { "X-Pitroom-Secret": secret() },
  });
  if (!res.ok) throw await failure(res, action === "stop" ? "Stop" : "Discard");
}

/** What the stream hands on. */
export type StreamHandlers = { [K in keyof StreamMessages]: (data: StreamMessages[K]) => void };

/** Follows the stream (the browser reconnects with `Last-Event-ID` by itself). */
export function openStream(on: StreamHandlers, onDown: () => void): () => void {
  const source = new EventSource("/api/stream");
  for (const name of Object.keys(on) as Array<keyof StreamMessages>) {
    source.addEventListener(name, (m) => on[name](JSON.parse(m.data) as never));
  }
  source.addEventListener("error", onDown);
  return () => source.close();
}
