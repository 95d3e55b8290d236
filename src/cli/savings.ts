/**
 * `pitroom savings [--since 7d|30d|all] [--models] [--json] [--card FILE.svg] [--badge]`:
 * what the workers saved over a period, from the receipts kept in the history.
 */
import { createEngine, type SavingsRow, type SavingsTotals } from "../engine/mod.ts";
import { formatRatio, primaryName } from "../engine/present.ts";
import { UsageError } from "../sys/errors.ts";
import { resolve } from "../sys/path.ts";
import type { CommandRun } from "./command.ts";
import type { SAVINGS_FLAGS } from "./savings_command.ts";
import { compact, count, usd } from "./figures.ts";
import { notePreparation } from "./history.ts";
import { printJson, table } from "./output.ts";
import { periodWords, sinceOf } from "./period.ts";

/** The wording every savings output carries. */
export const ESTIMATE_NOTE =
  "Money figures are estimates: a worker's reported cost where it gives one, else its tokens at list prices; what the primary would have charged is its list price for the same tokens.";

function burned(row: SavingsRow): number {
  const t = row.tokens;
  return t.input + t.cached + t.output + t.reasoning;
}

/** The text of `pitroom savings` (pure). */
export function renderSavings(totals: SavingsTotals, period: string, models: boolean): string {
  const t = totals.total;
  if (t.runs === 0) return `No finished runs (${period})\n`;
  const primary = primaryName(totals.primary);
  const ratio = t.returnedTokens > 0 ? burned(t) / t.returnedTokens : null;
  const lines = [
    `Savings, ${period}: ${t.runs} run(s), ${t.ok} ok`,
    `  burned    ${count(burned(t))} tokens (${count(t.tokens.input)} in, ${
      count(t.tokens.cached)
    } cached, ${count(t.tokens.output)} out, ${count(t.tokens.reasoning)} reasoning)`,
    `  returned  ${count(t.returnedTokens)} tokens to your agent${
      ratio === null ? "" : ` (${formatRatio(ratio)} compression)`
    }`,
    `  workers   ~${usd(t.workerCost)}`,
    `  ${primary} would have charged ~${usd(t.primaryCost)} for the same tokens`,
    `  saved     ~${usd(t.saved)}`,
  ];
  if (models && totals.rows.length > 0) {
    lines.push(
      "",
      table([
        ["WORKER:MODEL", "RUNS", "OK", "BURNED", "RETURNED", "WORKER COST", "PRIMARY", "SAVED"],
        ...totals.rows.map((r) => [
          r.label,
          String(r.runs),
          String(r.ok),
          compact(burned(r)),
          compact(r.returnedTokens),
          usd(r.workerCost),
          usd(r.primaryCost),
          usd(r.saved),
        ]),
      ]).trimEnd(),
    );
  }
  lines.push("", ESTIMATE_NOTE);
  return lines.join("\n") + "\n";
}

/** `pitroom savings`. */
export const savingsCommand: CommandRun<typeof SAVINGS_FLAGS> = async ({ sys, flags }) => {
  const now = sys.clock.now();
  const sinceText = flags.since;
  const since = sinceOf(sinceText, now);
  const cardPath = flags.card;
  if (cardPath !== undefined && !cardPath.endsWith(".svg")) {
    throw new UsageError(
      `--card writes an SVG file: give a name ending in .svg, not "${cardPath}"`,
    );
  }
  const totals = await createEngine(sys).savings({ since }, {
    onPrepared: (prep) => notePreparation(sys, prep),
  });
  const extra: { card?: string; badge?: { markdown: string; svg: string } } = {};
  if (cardPath !== undefined || flags.badge) {
    const { renderCard, renderBadge } = await import("../engine/present.ts");
    if (cardPath !== undefined) {
      extra.card = resolve(sys.cwd(), cardPath);
      await Deno.writeTextFile(extra.card, renderCard(totals));
    }
    if (flags.badge) extra.badge = renderBadge(totals);
  }
  if (flags.json) {
    printJson(sys, { ...totals, estimate: ESTIMATE_NOTE, ...extra });
    return 0;
  }
  if (flags.badge && extra.badge) {
    sys.out.stdout(`${extra.badge.markdown}\n\n${extra.badge.svg.trimEnd()}\n`);
  } else {
    sys.out.stdout(renderSavings(totals, periodWords(sinceText), flags.models === true));
  }
  if (extra.card) sys.out.stderr(`Wrote the savings card to ${extra.card}\n`);
  return 0;
};
