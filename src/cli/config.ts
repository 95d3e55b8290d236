/**
 * `pitroom config`: every effective setting and where it comes from, where the config file and
 * the state dir are, and what is wrong with the config (warnings on stderr; in JSON a list).
 */
import { createEngine, type Setting, type Settings } from "../engine/mod.ts";
import { TIERS } from "../engine/present.ts";
import type { CommandRun } from "./command.ts";
import type { CONFIG_FLAGS } from "./config_command.ts";
import { printJson, table, warn } from "./output.ts";

/**
 * The `config --json` document: `settings` maps each name (`worker`, `fallback`, `models`,
 * `tiers.cheap` … `tiers.audit`, `costs`, `workerPrices`, `primary`, `price`, `maxParallel`,
 * `limits`, `timeout`, `stallAfter`, `caps`, `notify`, `notifyCommand`, `cacheDays`, `audit`,
 * `auditFix`, `budgetDaily`, `rankWorkers`, `mcpDash`, `dash`, `dashIdle`) to `{value, source}` with
 * source `flag|env|file|default`; an unconfigured tier has value `null`.
 */
export interface ConfigReport {
  configPath: string;
  configExists: boolean;
  stateDir: string;
  settings: Record<string, Setting<unknown>>;
  warnings: string[];
}

/** Flattens the settings into named rows (pure). */
export function settingRows(
  settings: Settings,
  config: { caps?: Record<string, unknown>; notify?: unknown; notifyCommand?: unknown } = {},
): Record<string, Setting<unknown>> {
  const rows: Record<string, Setting<unknown>> = {
    worker: settings.worker,
    fallback: settings.fallback,
    models: settings.models,
  };
  for (const tier of TIERS) rows[`tiers.${tier}`] = settings.tiers[tier];
  rows.costs = settings.costs;
  rows.workerPrices = settings.workerPrices;
  rows.primary = settings.primary;
  rows.price = settings.price;
  rows.maxParallel = settings.maxParallel;
  rows.limits = settings.limits;
  rows.timeout = { value: settings.timeout.value.text, source: settings.timeout.source };
  rows.stallAfter = { value: settings.stallAfter.value.text, source: settings.stallAfter.source };
  rows.caps = capsRow(config.caps);
  rows.notify = config.notify === true
    ? { value: true, source: "file" }
    : { value: false, source: config.notify === false ? "file" : "default" };
  rows.notifyCommand = typeof config.notifyCommand === "string"
    ? { value: config.notifyCommand, source: "file" }
    : { value: null, source: "default" };
  rows.cacheDays = settings.cacheDays;
  rows.audit = settings.audit;
  rows.auditFix = settings.auditFix;
  rows.budgetDaily = settings.budgetDaily;
  rows.rankWorkers = settings.rankWorkers;
  rows.mcpDash = settings.mcpDash;
  rows.dash = settings.dash;
  rows.dashIdle = { value: settings.dashIdle.value.text, source: settings.dashIdle.source };
  rows.configPath = settings.configPath;
  rows.stateDir = settings.stateDir;
  return rows;
}

/** The config's default caps of every run (none unless the file sets `caps`; flags add to them). */
function capsRow(caps: Record<string, unknown> | undefined): Setting<unknown> {
  const value: Record<string, number> = {};
  for (const name of CAP_NAMES) {
    const cap = caps?.[name];
    if (typeof cap === "number" && cap > 0) value[name] = cap;
  }
  return { value, source: Object.keys(value).length > 0 ? "file" : "default" };
}

const CAP_NAMES = ["maxTokens", "maxCost", "maxSteps"] as const;

function show(name: string, value: unknown, settings: Settings): string {
  if (name.startsWith("tiers.") && value === null) {
    return `(not set: ${settings.worker.value})`;
  }
  if (value === null) return "(none)";
  if (Array.isArray(value)) return value.length === 0 ? "(none)" : value.join(", ");
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "(none)";
    return entries.map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(" ");
  }
  return String(value);
}

/** Shows the effective settings. */
export const configCommand: CommandRun<typeof CONFIG_FLAGS> = async ({ sys, flags }) => {
  const { loaded, settings, warnings } = await createEngine(sys).settings();
  const rows = settingRows(settings, loaded.config);
  if (flags.json) {
    const report: ConfigReport = {
      configPath: loaded.path,
      configExists: loaded.exists,
      stateDir: sys.stateDir,
      settings: rows,
      warnings,
    };
    printJson(sys, report);
    return 0;
  }
  warn(sys, warnings);
  const lines = [["SETTING", "SOURCE", "VALUE"]];
  for (const [name, setting] of Object.entries(rows)) {
    if (name === "configPath" || name === "stateDir") continue;
    lines.push([name, setting.source, show(name, setting.value, settings)]);
  }
  sys.out.stdout(table(lines));
  sys.out.stdout(
    `\nconfig     ${loaded.path} (${
      loaded.exists ? "exists" : "missing: `pitroom init` proposes one"
    }, ${settings.configPath.source === "env" ? "from PITROOM_CONFIG" : "default place"})\n` +
      `state dir  ${sys.stateDir} (${
        settings.stateDir.source === "env" ? "from PITROOM_STATE_DIR" : "default place"
      })\n`,
  );
  return 0;
};
