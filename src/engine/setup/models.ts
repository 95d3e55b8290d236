/**
 * The models of each installed worker (opencode and codex ask their CLI; claude, gemini and qwen
 * have maintained lists) merged with the models configured, their effort levels, the costs set in
 * the config and the usage from past runs. `pitroom models` renders this.
 */
import type { HeldSys } from "../../store/state.ts";
import { parseChain } from "../core/chain.ts";
import { detectWorkers, type WorkerStatus } from "./installed.ts";
import type { ModelCost, Settings } from "../core/settings.ts";
import { collectUsage, type ModelUsage, usageKey } from "./usage.ts";
import { BACKENDS } from "../../workers/registry.ts";
import { type Backend, freeFirst, WORKER_NAMES, type WorkerName } from "../../workers/types.ts";
import { backendOf } from "../../workers/lookup.ts";
import { detectAcpWorkers } from "./acp.ts";
/** How many models a worker shows without `--all`. */
export const SHOWN_MODELS = 10;

/** Usage of one model, as `models --json` prints it. */
export type UsageSummary = Omit<ModelUsage, "worker" | "model">;

/** One model row of `models --json`. */
export interface ModelRow {
  id: string;
  /** Where Pitroom learnt of it: the CLI, a maintained list, your config, or past runs only. */
  source: "cli" | "builtin" | "config" | "usage";
  efforts: string[];
  defaultEffort: string | null;
  /** Named in your config (`models`, `worker`, `fallback` or a tier). */
  configured: boolean;
  /** The worker's default model in your config (`models.<worker>`). */
  isDefault: boolean;
  /** What you said it costs (`costs`), USD per million tokens. */
  cost: ModelCost | null;
  usage: UsageSummary | null;
}

/**
 * One worker of `models --json` (the document is an array of these, the free workers first, then
 * registry order).
 */
export interface WorkerModels {
  /** A built-in worker, or one of the config's own (an ACP agent lists no models of its own). */
  worker: string;
  installed: boolean;
  version: string | null;
  /** How to install it, when it is not installed. */
  installHint: string | null;
  models: ModelRow[];
  /** Models left out without `--all`. */
  more: number;
  /** Usage of runs that used the CLI's own default model (no model given). */
  defaultModelUsage: UsageSummary | null;
}

/** Options of `collectModels`. */
export interface CollectOptions {
  worker?: string;
  all?: boolean;
  /** The backends to ask. @default the registry */
  backends?: Readonly<Record<WorkerName, Backend | undefined>>;
}

function configuredModels(settings: Settings, worker: string): Set<string> {
  const out = new Set<string>();
  const model = settings.models.value[worker];
  if (model !== undefined) out.add(model);
  const chains = [
    settings.worker.value,
    ...settings.fallback.value,
    ...Object.values(settings.tiers).map((t) => t.value),
  ];
  for (const chain of chains) {
    if (chain === null) continue;
    for (const target of parseChain(chain, Object.keys(settings.workers.value))) {
      if (target.worker === worker && target.model) out.add(target.model);
    }
  }
  return out;
}

function summary(usage: ModelUsage | undefined): UsageSummary | null {
  if (usage === undefined) return null;
  const { worker: _w, model: _m, ...rest } = usage;
  return rest;
}

/** Builds one worker's rows (pure): listed models merged with config and usage. */
export function mergeModels(
  status: Pick<WorkerStatus, "worker">,
  listed: readonly { id: string; efforts: string[]; defaultEffort?: string; source: string }[],
  options: { settings: Settings; usage: readonly ModelUsage[]; all: boolean },
): { models: ModelRow[]; more: number } {
  const { worker } = status;
  const byKey = new Map(options.usage.map((u) => [usageKey(u.worker, u.model), u]));
  const configured = configuredModels(options.settings, worker);
  const defaultModel = options.settings.models.value[worker];
  const row = (
    id: string,
    source: ModelRow["source"],
    efforts: string[] = [],
    defaultEffort?: string,
  ): ModelRow => ({
    id,
    source,
    efforts,
    defaultEffort: defaultEffort ?? null,
    configured: configured.has(id),
    isDefault: id === defaultModel,
    cost: options.settings.costs.value[id] ?? null,
    usage: summary(byKey.get(usageKey(worker, id))),
  });
  const rows = listed.map((m) =>
    row(m.id, m.source as ModelRow["source"], [...m.efforts], m.defaultEffort)
  );
  const seen = new Set(rows.map((r) => r.id));
  for (const id of configured) {
    if (!seen.has(id)) rows.push(row(id, "config")), seen.add(id);
  }
  for (const u of options.usage) {
    if (u.worker === worker && u.model !== null && !seen.has(u.model)) {
      rows.push(row(u.model, "usage"));
      seen.add(u.model);
    }
  }
  const rank = (r: ModelRow) => (r.isDefault ? 0 : r.configured ? 1 : r.usage ? 2 : 3);
  const sorted = rows.map((r, i) => ({ r, i })).sort((a, b) =>
    rank(a.r) - rank(b.r) || (b.r.usage?.attempts ?? 0) - (a.r.usage?.attempts ?? 0) || a.i - b.i
  ).map(({ r }) => r);
  if (options.all) return { models: sorted, more: 0 };
  const keep = Math.max(SHOWN_MODELS, sorted.filter((r) => rank(r) < 3).length);
  return { models: sorted.slice(0, keep), more: Math.max(0, sorted.length - keep) };
}

/** Collects the models of every worker (or one), with config and usage merged in. */
export async function collectModels(
  sys: HeldSys,
  settings: Settings,
  options: CollectOptions = {},
): Promise<WorkerModels[]> {
  const env = sys.env.toObject();
  const backends = options.backends ?? BACKENDS;
  const only = options.worker;
  const acp = Object.fromEntries(
    Object.entries(settings.workers.value).filter(([name]) => only === undefined || name === only),
  );
  const statuses = [
    ...(only !== undefined && (WORKER_NAMES as readonly string[]).includes(only) === false
      ? []
      : await detectWorkers(sys.runner, env, {
        backends,
        ...(only ? { only: [only as WorkerName] } : {}),
      })),
    ...await detectAcpWorkers(sys.runner, env, acp),
  ];
  const usage = await collectUsage(sys.state.runs);
  const order = freeFirst(statuses.map((s) => s.worker));
  statuses.sort((a, b) => order.indexOf(a.worker) - order.indexOf(b.worker));
  return await Promise.all(statuses.map(async (status): Promise<WorkerModels> => {
    const backend = backends[status.worker as WorkerName] ??
      backendOf(status.worker, settings.workers.value);
    const listed = status.installed !== null && backend !== undefined
      ? await backend.models(sys.runner, env)
      : [];
    const merged = mergeModels(status, listed, { settings, usage, all: options.all === true });
    return {
      worker: status.worker,
      installed: status.installed !== null,
      version: status.installed?.version ?? null,
      installHint: status.installed === null ? status.installHint : null,
      // A worker that is not installed shows only what you configured or used.
      models: status.installed === null
        ? merged.models.filter((m) => m.source === "config" || m.source === "usage")
        : merged.models,
      more: status.installed === null ? 0 : merged.more,
      defaultModelUsage: summary(
        usage.find((u) => u.worker === status.worker && u.model === null),
      ),
    };
  }));
}
