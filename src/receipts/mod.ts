/**
 * receipts/: receipts and savings as people see them (pure rendering; the figures are computed
 * by engine/run/receipt.ts): money, token and ratio formats (format.ts) shared by reports, the status
 * line and hook cards; a run's receipt as report lines (lines.ts); the shareable savings card
 * (card.ts, SVG) and the savings badge (badge.ts, SVG and shields.io Markdown).
 */
export { formatRatio, formatTokens, formatUsd, primaryName } from "./format.ts";
export { receiptLines } from "./lines.ts";
export { renderCard } from "./card.ts";
export { renderBadge } from "./badge.ts";
