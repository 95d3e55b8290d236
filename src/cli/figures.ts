/**
 * Numbers for people: token counts, money, rates and dates in the history and savings output.
 */
import { grouped } from "../engine/present.ts";

/** A count with thousands separators: `5,512,000`. */
export function count(n: number): string {
  return grouped(Math.round(n));
}

/** A short count (`12.3k`) and dollars (`$3.86`), as receipts print them. */
export { formatTokens as compact, formatUsd as usd } from "../engine/present.ts";

/** A rate as a percentage, or `-`. */
export function percent(rate: number | null): string {
  return rate === null ? "-" : `${Math.round(rate * 100)}%`;
}

/** A local date and time: `2026-11-30 10:15`. */
export function dateTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${
    p(d.getMinutes())
  }`;
}
