/**
 * The page's calls to the dashboard's API (src/server/dash/README.md): JSON reads, the one event
 * stream, and the two writes, each carrying the session's key. The page claims the key once per
 * session (`signIn`) and keeps it in localStorage, which is per origin (so per port, unlike the
 * cookie): reloads and new tabs find it there. A 401 means the pass is gone (the dashboard
 * restarted): `onDenied` listeners hear of it.
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

/** `KEY_ITEM` and `KEY_HEADER` of src/server/dash/api_types.ts (the page imports it type-only). */
const KEY_ITEM = "pitroom-key";
const KEY_HEADER = "X-Pitroom-Key";

/** The key this page claimed (when localStorage is off, the only copy). */
let held = "";

function key(): string {
  try {
    return localStorage.getItem(KEY_ITEM) ?? held;
  } catch {
    return held;
  }
}

/**
 * Claims the session's key when the page says its session is fresh (the first page of a session
 * gets it; later ones find it in localStorage). False when the page has none: it cannot read
 * anything.
 */
export async function signIn(): Promise<boolean> {
  const session = document.querySelector<HTMLMetaElement>('meta[name="pitroom-session"]');
  if (session?.content !== "fresh") return key() !== "";
  const res = await fetch("/api/session", { method: "POST" }).catch(() => null);
  if (res?.ok) {
    held = (await res.json() as { key: string }).key;
    try {
      localStorage.setItem(KEY_ITEM, held);
    } catch {
      // Storage is off: this page keeps the key alone.
    }
  } else await res?.body?.cancel();
  return key() !== "";
}

const deniedListeners = new Set<() => void>();
let denied = false;

/** Calls `fn` once the dashboard refuses this page (401); at once if it has already. */
export function onDenied(fn: () => void): () => void {
  if (denied) fn();
  deniedListeners.add(fn);
  return () => deniedListeners.delete(fn);
}

function checked(res: Response): Response {
  if (res.status === 401 && !denied) {
    denied = true;
    for (const fn of deniedListeners) fn();
  }
  return res;
}

function call(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(path, { ...init, headers: { ...init.headers, [KEY_HEADER]: key() } }).then(checked);
}

async function failure(res: Response, what: string): Promise<Error> {
  const body = await res.json().catch(() => null) as { error?: { message?: string } } | null;
  return new Error(`${what} failed: ${body?.error?.message ?? res.statusText}`);
}

async function getJson<T>(path: string): Promise<T> {
  const res = await call(path, { headers: { accept: "application/json" } });
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
  const res = await call(`/api/runs/${encodeURIComponent(id)}/patch`);
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
  const res = await call(`/api/runs/${encodeURIComponent(id)}/${action}`, { method: "POST" });
  if (!res.ok) throw await failure(res, action === "stop" ? "Stop" : "Discard");
}

/** What the stream hands on. */
export type StreamHandlers = { [K in keyof StreamMessages]: (data: StreamMessages[K]) => void };

/**
 * Follows the stream (the browser reconnects with `Last-Event-ID` by itself; a refusal closes
 * it for good, and a probe tells whether the page was refused).
 */
export function openStream(on: StreamHandlers, onDown: () => void): () => void {
  const source = new EventSource(`/api/stream?key=${encodeURIComponent(key())}`);
  for (const name of Object.keys(on) as Array<keyof StreamMessages>) {
    source.addEventListener(name, (m) => on[name](JSON.parse(m.data) as never));
  }
  source.addEventListener("error", () => {
    onDown();
    if (source.readyState === EventSource.CLOSED) {
      void call("/api/summary").then((res) => res.body?.cancel(), () => undefined);
    }
  });
  return () => source.close();
}
