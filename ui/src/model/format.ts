/** Short figures for the page (pure): durations, token counts, money, clock times. */

/** `850ms`, `12s`, `3m 05s`, `1h 02m`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/** `950`, `12.3k`, `4.5M`. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** `$0.42`, `$12`, `<$0.01`. */
export function usd(n: number): string {
  if (n === 0) return "$0";
  if (Math.abs(n) < 0.01) return "<$0.01";
  return `$${n < 10 ? n.toFixed(2) : n.toFixed(0)}`;
}

/** `73%`, or `-` without a rate. */
export function percent(rate: number | null): string {
  return rate === null ? "-" : `${Math.round(rate * 100)}%`;
}

/** A clock time `14:05:09` in local time. */
export function clock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()]
    .map((n) => String(n).padStart(2, "0"))
    .join(":");
}

/** A date and time `2026-12-01 14:05` in local time. */
export function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${
    p(d.getMinutes())
  }`;
}

/** Local midnight of the day of `now`. */
export function startOfDay(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** A snippet's pieces: the matches are between U+E000 and U+E001. */
export function snippetParts(text: string): Array<{ text: string; match: boolean }> {
  const out: Array<{ text: string; match: boolean }> = [];
  let match = false;
  for (const piece of text.split(/([\uE000\uE001])/)) {
    if (piece === "\uE000") match = true;
    else if (piece === "\uE001") match = false;
    else if (piece !== "") out.push({ text: piece, match });
  }
  return out;
}
