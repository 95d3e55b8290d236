/** Short figures for the page (pure): durations, token counts, money, counts, local times. */

/** `850ms`, `12s`, `3m 05s`, `1h 02m`, `2d 03h` (a duration never wraps back to fewer hours). */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 1000) return `${Math.max(0, Math.round(ms || 0))}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${pad(s % 60)}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${pad(m % 60)}m`;
  return `${Math.floor(h / 24)}d ${pad(h % 24)}h`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** `950`, `12.3k`, `4.5M`. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/**
 * `$0.42`, `$12`, `-$0.07` (the sign before the dollar), and under a cent four decimals as the
 * CLI's receipts write them (`$0.0042`).
 */
export function usd(n: number): string {
  if (n === 0) return "$0";
  const sign = n < 0 ? "-" : "";
  const a = Math.abs(n);
  if (a < 0.01) return `${sign}$${a.toFixed(4)}`;
  return `${sign}$${a < 10 ? a.toFixed(2) : a.toFixed(0)}`;
}

/** `1 tool`, `3 tools`: a count with its noun, singular for one. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `73%`, or `-` without a rate. */
export function percent(rate: number | null): string {
  return rate === null ? "-" : `${Math.round(rate * 100)}%`;
}

/** A clock time `14:05:09` in local time. */
export function clock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map(pad).join(":");
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A moment in local time, as a person says it next to `now`: `today 14:05`, `yesterday 09:12`,
 * `tomorrow 08:00`, `3 Dec 14:05` this year, `3 Dec 2025 14:05` another year.
 */
export function when(ms: number, now: number): string {
  const d = new Date(ms);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const days = Math.round((startOfDay(ms) - startOfDay(now)) / 86_400_000);
  if (days === 0) return `today ${time}`;
  if (days === -1) return `yesterday ${time}`;
  if (days === 1) return `tomorrow ${time}`;
  const year = d.getFullYear() === new Date(now).getFullYear() ? "" : ` ${d.getFullYear()}`;
  return `${d.getDate()} ${MONTHS[d.getMonth()]}${year} ${time}`;
}

/** A date and time `2026-12-01 14:05` in local time (a tooltip's exact moment). */
export function stamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${
    pad(d.getMinutes())
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
