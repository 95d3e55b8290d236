import assert from "node:assert/strict";
import { modelName, periodText, renderCard } from "../../src/receipts/card.ts";
import { renderBadge } from "../../src/receipts/badge.ts";
import { formatRatio, formatTokens, formatUsd } from "../../src/receipts/format.ts";
import type { SavingsRow, SavingsTotals } from "../../src/receipts/totals.ts";
import { allElements, parseXml, texts } from "./_xml.ts";

const DAY = 86_400_000;
const UNTIL = Date.parse("2026-11-30T12:00:00Z");

function row(label: string, runs: number, saved: number, burned: number, returned: number) {
  return {
    label,
    runs,
    ok: runs,
    tokens: { input: burned * 0.1, cached: burned * 0.8, output: burned * 0.1, reasoning: 0 },
    returnedTokens: returned,
    workerCost: 0,
    primaryCost: saved,
    saved,
  } satisfies SavingsRow;
}

function totals(overrides: Partial<SavingsTotals> = {}): SavingsTotals {
  return {
    since: UNTIL - 7 * DAY,
    until: UNTIL,
    primary: "sonnet",
    total: row("all", 128, 12.34, 5_500_000, 7_684),
    rows: [
      row("opencode:opencode/space-bunny-free", 80, 8.1, 3_000_000, 4_000),
      row("codex:gpt-5.4-mini", 30, 3.2, 2_000_000, 2_500),
      row("gemini:gemini-3.5-flash", 17, 1.04, 400_000, 1_000),
      row("claude:<b>&co", 1, 0, 100_000, 184),
    ],
    ...overrides,
  };
}

Deno.test("renderCard() is a well-formed 600x315 SVG with no external fonts or images", () => {
  const svg = renderCard(totals());
  const root = parseXml(svg);
  assert.equal(root.name, "svg");
  assert.equal(root.attrs.xmlns, "http://www.w3.org/2000/svg");
  assert.deepEqual([root.attrs.width, root.attrs.height], ["600", "315"]);
  const elements = allElements(root);
  assert.ok(!elements.some((e) => e.name === "image" || e.name === "style" || e.name === "use"));
  assert.doesNotMatch(svg, /https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  assert.doesNotMatch(svg, /@import|@font-face|url\((?!#)/);
});

Deno.test("renderCard() shows the saved amount, the period, runs, tokens, compression and top models", () => {
  const shown = texts(parseXml(renderCard(totals())));
  assert.ok(shown.includes("$12.34"), shown.join(" | "));
  assert.ok(shown.includes("last 7 days"));
  assert.ok(shown.includes("128"));
  assert.ok(shown.includes("5.5M → 7.7k"));
  assert.ok(shown.includes("716x"), shown.join(" | "));
  assert.ok(shown.some((t) => /estimated vs Claude Sonnet list prices/.test(t)));
  assert.deepEqual(
    shown.filter((t) => ["space-bunny-free", "gpt-5.4-mini", "gemini-3.5-flash"].includes(t)),
    ["space-bunny-free", "gpt-5.4-mini", "gemini-3.5-flash"],
  );
  assert.ok(shown.includes("$8.10") && shown.includes("$3.20") && shown.includes("$1.04"));
  assert.ok(!shown.includes("<b>&co"), "only the top three models are listed");
});

Deno.test("renderCard() escapes labels and copes with no runs and with big numbers", () => {
  const escaped = renderCard(totals({ rows: [row("claude:<b>&co", 1, 1, 10, 1)] }));
  assert.match(escaped, /&lt;b&gt;&amp;co/);
  assert.ok(texts(parseXml(escaped)).includes("<b>&co"));
  const empty = texts(parseXml(renderCard(totals({
    since: null,
    total: row("all", 0, 0, 0, 0),
    rows: [],
  }))));
  assert.ok(empty.includes("$0.00") && empty.includes("all time") && empty.includes("No runs yet"));
  const big = texts(
    parseXml(renderCard(totals({ total: row("all", 12_345, 12_345.67, 9.9e9, 1.2e6) }))),
  );
  assert.ok(big.includes("$12,345.67") && big.includes("12,345") && big.includes("9.9B → 1.2M"));
});

Deno.test("renderBadge() gives shields.io Markdown and a self-contained flat SVG with the same text", () => {
  const { markdown, svg } = renderBadge(totals());
  assert.equal(
    markdown,
    "![pitroom saved: $12.34 (estimate)](https://img.shields.io/badge/pitroom%20saved-%2412.34-brightgreen)",
  );
  const root = parseXml(svg);
  assert.equal(root.attrs.height, "20");
  const shown = texts(root);
  assert.deepEqual(shown, ["pitroom saved", "pitroom saved", "$12.34", "$12.34"]);
  const rects = allElements(root).filter((e) => e.attrs.fill === "#555" || e.attrs.fill === "#4c1");
  const [left, right] = rects.map((r) => Number(r.attrs.width));
  assert.equal(left! + right!, Number(root.attrs.width));
  assert.ok(right! < left!, "the amount's side is narrower than the label's");
  assert.doesNotMatch(svg, /https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
});

Deno.test("renderBadge() never shows a negative saving and escapes dashes for shields", () => {
  const { markdown } = renderBadge(totals({ total: row("all", 1, -3, 10, 1) }));
  assert.match(markdown, /-%240\.00-brightgreen\)$/);
});

Deno.test("formatters: money, tokens, ratios, periods and model names", () => {
  assert.deepEqual(
    [formatUsd(0), formatUsd(0.0042), formatUsd(3.456), formatUsd(1234.5), formatUsd(-0.5)],
    ["$0.00", "$0.0042", "$3.46", "$1,234.50", "-$0.50"],
  );
  assert.deepEqual(
    [formatTokens(950), formatTokens(12_340), formatTokens(5_500_000), formatTokens(150_000)],
    ["950", "12.3k", "5.5M", "150k"],
  );
  assert.deepEqual([formatRatio(null), formatRatio(12.34), formatRatio(716.4)], [
    "-",
    "12.3x",
    "716x",
  ]);
  assert.equal(periodText({ since: UNTIL - 30 * DAY, until: UNTIL }), "last 30 days");
  assert.equal(
    periodText({ since: Date.parse("2026-11-01T08:00:00Z"), until: UNTIL }),
    "since 2026-11-01",
  );
  assert.deepEqual(
    [
      modelName("opencode:opencode/space-bunny-free"),
      modelName("claude"),
      modelName("codex:gpt-5.5"),
    ],
    ["space-bunny-free", "claude", "gpt-5.5"],
  );
});
