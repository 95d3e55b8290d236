/**
 * The worker chain of a run: `-W` (a chain like `opencode:fake/a,codex`), else the config's
 * `worker` and `fallback`, else opencode; `-m` sets the first target's model; the config's
 * `models` give each backend its default model. A worker is a built-in backend or a name the
 * config's `workers` defines (an ACP agent): the parsers take those names as `known`.
 */
import type { Target } from "../../store/record.ts";
import { UsageError } from "../../sys/errors.ts";
import { WORKER_NAMES, type WorkerName } from "../../workers/types.ts";

/** The worker used when nothing is configured. */
export const DEFAULT_WORKER: WorkerName = "opencode";

/**
 * Parses one target: `worker` or `worker:model`; `known` are the config's own worker names.
 */
export function parseTarget(text: string, known: readonly string[] = []): Target {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(":");
  const name = colon < 0 ? trimmed : trimmed.slice(0, colon);
  const model = colon < 0 ? "" : trimmed.slice(colon + 1);
  const names = [...WORKER_NAMES, ...known];
  if (!names.includes(name)) {
    throw new UsageError(`Unknown worker "${name}": expected one of ${names.join(", ")}`, {
      hint: "see installed workers with `pitroom doctor`",
    });
  }
  return model ? { worker: name, model } : { worker: name };
}

/** Parses a chain: targets separated by commas; `known` are the config's own worker names. */
export function parseChain(text: string, known: readonly string[] = []): Target[] {
  const parts = text.split(",").filter((p) => p.trim().length > 0);
  if (parts.length === 0) {
    throw new UsageError("Empty worker chain", { hint: "use `worker: opencode`" });
  }
  return parts.map((part) => parseTarget(part, known));
}

/** Options of `resolveChain`. */
export interface ChainOptions {
  worker?: string;
  model?: string;
  noFallback?: boolean;
}

/** The configured defaults a chain starts from. */
export interface ChainDefaults {
  /** The default worker chain. */
  worker: string;
  /** Targets after it. */
  fallback: readonly string[];
  /** Default model per backend. */
  models: Readonly<Record<string, string>>;
  /**
   * The config's own worker names (`workers`).
   * @default none
   */
  workers?: readonly string[];
}

/** Resolves the chain a run will walk: `-W` wins; else the default worker and its fallback. */
export function resolveChain(config: ChainDefaults, options: ChainOptions): Target[] {
  let chain: Target[];
  if (options.worker !== undefined) {
    chain = parseChain(options.worker, config.workers);
  } else {
    chain = parseChain(config.worker || DEFAULT_WORKER, config.workers);
    for (const fb of config.fallback) chain.push(...parseChain(fb, config.workers));
  }
  if (options.model !== undefined && chain[0]) chain[0] = { ...chain[0], model: options.model };
  if (options.noFallback) chain = chain.slice(0, 1);
  return chain.map((t) => {
    const model = t.model ?? config.models[t.worker];
    return model ? { worker: t.worker, model } : { worker: t.worker };
  });
}

/** The display name of a target: `opencode (fake/x)` or `opencode (default model)`. */
export function targetLabel(target: Target): string {
  return `${target.worker} (${target.model ?? "default model"})`;
}
