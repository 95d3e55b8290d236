/** History's query string (pure). */

/** What History asks for. */
export interface HistoryQuery {
  text: string;
  state: string;
  model: string;
  worker: string;
  /** `1d`, `7d`, `30d`, or empty for all. */
  period: string;
  page: number;
}

/** History's page size. */
export const PAGE_SIZE = 20;

/** The query string of a History query. */
export function historyParams(q: HistoryQuery): URLSearchParams {
  const p = new URLSearchParams();
  if (q.text.trim()) p.set("q", q.text.trim());
  for (const k of ["state", "model", "worker"] as const) if (q[k]) p.set(k, q[k]);
  p.set("since", q.period || "all");
  p.set("limit", String(PAGE_SIZE));
  p.set("offset", String(q.page * PAGE_SIZE));
  return p;
}
