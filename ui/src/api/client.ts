/**
 * The page's calls to the dashboard's API: JSON reads, the one event stream, and the two writes
 * (each carries the secret the page was served with).
 */
import type { PitroomEvent, RunReport, SearchHit, Stats } from "./types.ts";

/** The secret of this page, from the page's `<meta name="pitroom-secret">`. */
function secret(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="pitroom-secret"]')?.content ?? "";
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: "application/json" } });
  if (!res.ok) throw new Error(`GET ${path} failed: ${res.status} ${await res.text()}`);
  return await res.json() as T;
}

/** The live runs and the recent ones. */
export function fetchRuns(): Promise<RunReport[]> {
  return getJson<{ runs: RunReport[] }>("/api/runs").then((r) => r.runs);
}

/** One run's report. */
export function fetchReport(id: string): Promise<RunReport> {
  return getJson<RunReport>(`/api/runs/${encodeURIComponent(id)}`);
}

/** One run's events so far. */
export function fetchEvents(id: string): Promise<PitroomEvent[]> {
  return getJson<{ events: PitroomEvent[] }>(`/api/runs/${encodeURIComponent(id)}/events`)
    .then((r) => r.events);
}

/** One run's patch (empty when it changed nothing). */
export async function fetchPatch(id: string): Promise<string> {
  const res = await fetch(`/api/runs/${encodeURIComponent(id)}/patch`);
  if (res.status === 404) return "";
  if (!res.ok) throw new Error(`GET patch failed: ${res.status}`);
  return await res.text();
}

/** What History asks for. */
export interface HistoryQuery {
  text: string;
  state: string;
  model: string;
  worker: string;
  period: string;
  page: number;
}

/** History's page size. */
export const PAGE_SIZE = 20;

/** One page of history hits, and whether there is another. */
export async function searchHistory(
  q: HistoryQuery,
): Promise<{ hits: SearchHit[]; more: boolean }> {
  const p = new URLSearchParams();
  if (q.text.trim()) p.set("q", q.text.trim());
  for (const k of ["state", "model", "worker"] as const) if (q[k]) p.set(k, q[k]);
  if (q.period) p.set("since", q.period);
  p.set("limit", String(PAGE_SIZE + 1));
  p.set("offset", String(q.page * PAGE_SIZE));
  const r = await getJson<{ hits: SearchHit[] }>(`/api/history?${p}`);
  return { hits: r.hits.slice(0, PAGE_SIZE), more: r.hits.length > PAGE_SIZE };
}

/** The stats of a period (`7d`, `30d`, or empty for all). */
export function fetchStats(period: string): Promise<Stats> {
  return getJson<Stats>(`/api/stats${period ? `?since=${encodeURIComponent(period)}` : ""}`);
}

/** The savings of the last week, in dollars. */
export function fetchSavedWeek(): Promise<number> {
  return getJson<{ saved: number }>("/api/savings?since=7d").then((r) => r.saved);
}

/** Stops a running run or discards a finished isolate run's copy. */
export async function act(id: string, action: "stop" | "discard"): Promise<void> {
  const res = await fetch(`/api/runs/${encodeURIComponent(id)}/${action}`, {
    method: "POST",
    headers: { "x-pitroom-secret": secret() },
  });
  if (!res.ok) throw new Error(`${action} failed: ${res.status} ${await res.text()}`);
}

/** One event of the stream. */
export interface StreamEvent {
  run: string;
  event: PitroomEvent;
}

/** Follows the stream; the browser reconnects with `Last-Event-ID` by itself. */
export function openStream(onEvent: (ev: StreamEvent) => void, onOpen: () => void): () => void {
  const source = new EventSource("/api/stream");
  source.addEventListener("open", onOpen);
  source.addEventListener("message", (m) => onEvent(JSON.parse(m.data) as StreamEvent));
  return () => source.close();
}
