/**
 * The shareable savings card (`pitroom savings --card FILE.svg`): a self-contained 600x315 SVG
 * (no external fonts or images) with the estimated amount saved, the runs, the tokens burned
 * against the tokens returned, the compression and the top models. Pure.
 */
import { grouped } from "./format.ts";
import { formatRatio, formatTokens, formatUsd, primaryName } from "./format.ts";
import { PRICES_TAKEN } from "./prices.ts";
import { rowBurned, rowCompression, type SavingsRow, type SavingsTotals } from "./totals.ts";
import { oneLine } from "../sys/text.ts";

/** Card width and height, px. */
const CARD_SIZE = { width: 600, height: 315 } as const;

const FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const DAY = 86_400_000;

/** Escapes text for SVG/XML. */
function xmlEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

/** `last 7 days`, `all time`, or `since 2026-11-01`. */
export function periodText(totals: Pick<SavingsTotals, "since" | "until">): string {
  if (totals.since === null) return "all time";
  const days = (totals.until - totals.since) / DAY;
  if (Number.isInteger(days)) return days === 1 ? "last 24 hours" : `last ${days} days`;
  return `since ${new Date(totals.since).toISOString().slice(0, 10)}`;
}

/** A row's label as the card shows it: the model without its worker and provider. */
export function modelName(label: string): string {
  const model = label.slice(label.indexOf(":") + 1);
  return model.slice(model.lastIndexOf("/") + 1) || label;
}

function topModels(rows: readonly SavingsRow[]): string[] {
  const top = rows.filter((r) => r.runs > 0).slice(0, 3);
  if (top.length === 0) {
    return [
      `<text x="368" y="118" font-family="${FONT}" font-size="13" fill="#64748b">No runs yet</text>`,
    ];
  }
  const most = Math.max(...top.map((r) => Math.abs(r.saved)), 1e-9);
  return top.flatMap((row, i) => {
    const y = 104 + i * 34;
    const width = Math.max(4, Math.round(196 * Math.abs(row.saved) / most));
    return [
      `<text x="368" y="${y}" font-family="${FONT}" font-size="13" fill="#e2e8f0">${
        xmlEscape(oneLine(modelName(row.label), 24))
      }</text>`,
      `<text x="564" y="${y}" text-anchor="end" font-family="${FONT}" font-size="12" font-weight="600" fill="#86efac">${
        xmlEscape(formatUsd(row.saved))
      }</text>`,
      `<rect x="368" y="${y + 7}" width="196" height="5" rx="2.5" fill="#1e293b"/>`,
      `<rect x="368" y="${y + 7}" width="${width}" height="5" rx="2.5" fill="url(#bar)"/>`,
    ];
  });
}

function stat(x: number, value: string, label: string): string {
  return [
    `<text x="${x}" y="252" font-family="${FONT}" font-size="24" font-weight="700" fill="#f8fafc">${
      xmlEscape(value)
    }</text>`,
    `<text x="${x}" y="272" font-family="${FONT}" font-size="12" fill="#94a3b8">${
      xmlEscape(label)
    }</text>`,
  ].join("\n  ");
}

/** The savings card as an SVG document. */
export function renderCard(totals: SavingsTotals): string {
  const t = totals.total;
  const burned = rowBurned(t);
  const ratio = rowCompression(t);
  const saved = formatUsd(Math.max(0, t.saved));
  const headlineSize = saved.length <= 7 ? 64 : saved.length <= 9 ? 52 : 42;
  const { width, height } = CARD_SIZE;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Pitroom saved ${
      xmlEscape(saved)
    } (estimate), ${periodText(totals)}">`,
    `<title>Pitroom saved ${xmlEscape(saved)} (estimate), ${periodText(totals)}</title>`,
    `<defs>`,
    `  <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#0b1120"/><stop offset="1" stop-color="#172033"/></linearGradient>`,
    `  <linearGradient id="bar" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#22c55e"/><stop offset="1" stop-color="#86efac"/></linearGradient>`,
    `  <radialGradient id="glow" cx="0.2" cy="0.35" r="0.6"><stop offset="0" stop-color="#22c55e" stop-opacity="0.16"/><stop offset="1" stop-color="#22c55e" stop-opacity="0"/></radialGradient>`,
    `</defs>`,
    `<rect width="${width}" height="${height}" rx="18" fill="url(#bg)"/>`,
    `<rect width="${width}" height="${height}" rx="18" fill="url(#glow)"/>`,
    `<rect x="0.5" y="0.5" width="${width - 1}" height="${
      height - 1
    }" rx="17.5" fill="none" stroke="#334155"/>`,
    `<rect x="36" y="30" width="22" height="22" rx="6" fill="#22c55e"/>`,
    `<path d="M43 36h5.5a4 4 0 0 1 0 8H43z M43 44v4" fill="none" stroke="#0b1120" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>`,
    `<text x="66" y="47" font-family="${FONT}" font-size="18" font-weight="700" fill="#f8fafc">pitroom</text>`,
    `<text x="564" y="46" text-anchor="end" font-family="${FONT}" font-size="13" fill="#94a3b8">${
      xmlEscape(periodText(totals))
    }</text>`,
    `<text x="36" y="148" font-family="${FONT}" font-size="${headlineSize}" font-weight="800" fill="#4ade80" letter-spacing="-1.5">${
      xmlEscape(saved)
    }</text>`,
    `<text x="38" y="178" font-family="${FONT}" font-size="14" fill="#cbd5e1">saved, estimated vs ${
      xmlEscape(oneLine(primaryName(totals.primary), 18))
    } list prices</text>`,
    `<text x="368" y="80" font-family="${FONT}" font-size="11" font-weight="600" fill="#64748b" letter-spacing="1.2">TOP MODELS</text>`,
    ...topModels(totals.rows),
    `<line x1="36" y1="210" x2="564" y2="210" stroke="#334155"/>`,
    stat(36, grouped(t.runs), t.runs === 1 ? "run" : "runs"),
    stat(
      150,
      `${formatTokens(burned)} → ${formatTokens(t.returnedTokens)}`,
      "tokens burned → returned",
    ),
    stat(368, ratio === null ? "—" : formatRatio(ratio), "compression"),
    `<text x="564" y="298" text-anchor="end" font-family="${FONT}" font-size="10" fill="#475569">estimates from list prices of ${PRICES_TAKEN}</text>`,
    `</svg>`,
  ];
  return parts.join("\n") + "\n";
}
