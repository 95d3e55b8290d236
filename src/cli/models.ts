/**
 * `pitroom models [WORKER] [--all]`: per installed worker, the models it offers merged with the
 * models you configured, their effort levels (default marked), your costs and your usage from
 * past runs (engine/setup/models.ts collects them; this renders).
 */
import {
  createEngine,
  type ModelCost,
  type ModelRow,
  type UsageSummary,
  type WorkerModels,
} from "../engine/mod.ts";
import { WORKER_NAMES } from "../engine/present.ts";
import { formatDuration } from "../sys/duration.ts";
import { UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import type { MODELS_FLAGS } from "./models_command.ts";
import { printJson, table, warn } from "./output.ts";

function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

function usageText(u: UsageSummary | null): string {
  if (u === null) return "-";
  return `${u.attempts} run${u.attempts === 1 ? "" : "s"} · ${tokens(u.tokens.input)} in / ${
    tokens(u.tokens.output)
  } out · ${formatDuration(u.timeMs)}`;
}

function costText(c: ModelCost | null): string {
  if (c === null) return "-";
  const part = (v: number | undefined) => (v === undefined ? "-" : `$${v}`);
  return `${part(c.input)}/${part(c.output)}/${part(c.cached)}`;
}

function effortText(m: ModelRow): string {
  if (m.efforts.length === 0) return "-";
  return m.efforts.map((e) => (e === m.defaultEffort ? `${e}*` : e)).join(" ");
}

/** Renders the human form of the models list (pure). */
export function renderModels(workers: readonly WorkerModels[]): string {
  const parts: string[] = [];
  for (const w of workers) {
    if (!w.installed) {
      const extra = w.models.length > 0
        ? ` (configured: ${w.models.map((m) => m.id).join(", ")})`
        : "";
      parts.push(`${w.worker}: not installed: ${w.installHint}${extra}\n`);
      continue;
    }
    let text = `${w.worker} ${w.version}\n`;
    const rows = [["  MODEL", "EFFORT (* default)", "COST in/out/cached per 1M", "USED"]];
    for (const m of w.models) {
      const mark = m.isDefault ? " (default)" : m.configured ? " (configured)" : "";
      rows.push([`  ${m.id}${mark}`, effortText(m), costText(m.cost), usageText(m.usage)]);
    }
    if (w.defaultModelUsage !== null) {
      rows.push(["  (CLI's default model)", "-", "-", usageText(w.defaultModelUsage)]);
    }
    if (rows.length === 1) text += "  (no models listed)\n";
    else text += table(rows);
    if (w.more > 0) text += `  ${w.more} more: pitroom models ${w.worker} --all\n`;
    parts.push(text);
  }
  return parts.join("\n");
}

/** Lists models. */
export const modelsCommand: CommandRun<typeof MODELS_FLAGS> = async ({ sys, flags, args }) => {
  const name = args[0];
  const engine = createEngine(sys);
  const { warnings, settings } = await engine.settings();
  // A built-in worker, or one of the config's own (an ACP agent).
  const names = [...WORKER_NAMES, ...Object.keys(settings.workers.value)];
  const worker = names.find((w) => w === name);
  if (name !== undefined && worker === undefined) {
    throw new UsageError(`Unknown worker "${name}": expected one of ${names.join(", ")}`, {
      hint: "pitroom models",
    });
  }
  warn(sys, warnings);
  const workers = await engine.models(worker, { all: flags.all === true });
  if (flags.json) printJson(sys, workers);
  else sys.out.stdout(renderModels(workers));
  return 0;
};
