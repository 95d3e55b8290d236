/**
 * The savings badge (`pitroom savings --badge`): a shields-style flat badge
 * ("pitroom saved | $12.34") as a self-contained SVG, and Markdown pointing at the same text on
 * shields.io's static badge endpoint. Pure.
 */
import { formatUsd } from "./format.ts";
import type { SavingsTotals } from "./totals.ts";

const LABEL = "pitroom saved";
const COLOR = "#4c1";

/** Rough widths of Verdana 11px glyphs (what shields measures with), px. */
function textWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    if (/[ilI.,:;|!'`]/.test(ch)) width += 3.4;
    else if (/[ frtj()\[\]-]/.test(ch)) width += 4.4;
    else if (/[mwMW%@]/.test(ch)) width += 10.2;
    else if (/[A-Z$0-9#&]/.test(ch)) width += 7.4;
    else width += 6.6;
  }
  return Math.round(width);
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** One part of a shields.io static badge path: `-` doubled, `_` doubled, then URL-encoded. */
function shieldsPart(text: string): string {
  return encodeURIComponent(text.replace(/-/g, "--").replace(/_/g, "__"));
}

/** The badge of the totals: Markdown (shields.io) and a self-contained SVG. */
export function renderBadge(totals: SavingsTotals): { markdown: string; svg: string } {
  const message = formatUsd(Math.max(0, totals.total.saved));
  const url = `https://img.shields.io/badge/${shieldsPart(LABEL)}-${
    shieldsPart(message)
  }-brightgreen`;
  const markdown = `![${LABEL}: ${message} (estimate)](${url})`;
  const left = textWidth(LABEL) + 10;
  const right = textWidth(message) + 10;
  const width = left + right;
  const title = `${LABEL}: ${message} (estimate)`;
  const svg = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${
      escape(title)
    }">`,
    `<title>${escape(title)}</title>`,
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`,
    `<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>`,
    `<g clip-path="url(#r)"><rect width="${left}" height="20" fill="#555"/><rect x="${left}" width="${right}" height="20" fill="${COLOR}"/><rect width="${width}" height="20" fill="url(#s)"/></g>`,
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">`,
    `<text x="${left / 2}" y="15" fill="#010101" fill-opacity=".3">${escape(LABEL)}</text>`,
    `<text x="${left / 2}" y="14">${escape(LABEL)}</text>`,
    `<text x="${left + right / 2}" y="15" fill="#010101" fill-opacity=".3">${
      escape(message)
    }</text>`,
    `<text x="${left + right / 2}" y="14">${escape(message)}</text>`,
    `</g>`,
    `</svg>`,
  ].join("\n") + "\n";
  return { markdown, svg };
}
