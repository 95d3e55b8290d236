/**
 * The effective settings: each one from a flag, the environment, the config file or the default,
 * and each remembering which. Pure: the caller loads the config (with its own warnings) and hands
 * in the environment and the flags; bad values are warnings and fall back, never fatal.
 */
import type { Config } from "../../store/config.ts";
import { MAX_PARALLEL_CEILING } from "../../store/slot_ceiling.ts";
import { PitroomError } from "../../sys/errors.ts";
import { WORKER_NAMES } from "../../workers/types.ts";
import { type AcpWorker, readAcpWorkers } from "../../workers/acp/config.ts";
import { resolvePricing } from "../../receipts/pricing.ts";
import { DEFAULT_WORKER, parseChain } from "./chain.ts";
import { durationMs, MAX_DURATION } from "../../sys/duration.ts";
import { DEFAULT_STALL_AFTER } from "./stall.ts";

/** Where a setting's value comes from. */
export type SettingSource = "flag" | "env" | "file" | "default";

/** One effective setting. */
export interface Setting<T> {
  value: T;
  source: SettingSource;
}

/** The tiers plans and reviews name instead of a worker. */
export const TIERS = ["cheap", "standard", "capable", "review", "audit"] as const;
/** A tier name. */
export type TierName = typeof TIERS[number];

/** What a model costs, USD per million tokens. */
export interface ModelCost {
  input?: number;
  output?: number;
  cached?: number;
}

/** The default number of workers at once. */
export const DEFAULT_MAX_PARALLEL = 20;
/** The default run timeout, as typed. */
const DEFAULT_TIMEOUT = "30m";
/** The dashboard's default idle time, as typed. */
const DEFAULT_DASH_IDLE = "15m";

/** Every effective setting. */
export interface Settings {
  /** The default worker chain (`opencode`, `codex:gpt-5.5,claude`). */
  worker: Setting<string>;
  /** Targets tried after the worker, in order. */
  fallback: Setting<string[]>;
  /** Default model per backend. */
  models: Setting<Record<string, string>>;
  /** Tier -> worker chain; `null` when the tier is not configured. */
  tiers: Record<TierName, Setting<string | null>>;
  /** Model id -> cost. */
  costs: Setting<Record<string, ModelCost>>;
  /** Model id -> worker price for receipts (`costs` merged under `workerPrices`). */
  workerPrices: Setting<Record<string, ModelCost>>;
  /** The primary model savings are measured against (`sonnet`, `opus`, `gpt-5`, `custom`). */
  primary: Setting<string>;
  /** The custom primary price (`price`); `null` when not configured. */
  price: Setting<ModelCost | null>;
  /** Workers at once, clamped to 1..30. */
  maxParallel: Setting<number>;
  /** Per-worker caps on runs at once (`{"gemini": 2}`), within maxParallel. */
  limits: Setting<Record<string, number>>;
  /** The default run timeout. */
  timeout: Setting<{ text: string; ms: number }>;
  /** How long a running run's worker may send no event before the run shows as stalled. */
  stallAfter: Setting<{ text: string; ms: number }>;
  /** Days a read answer may be given again from the answer cache (0: off). */
  cacheDays: Setting<number>;
  /** Share of finished read answers audited by another worker (`audit`), 0..1. */
  audit: Setting<number>;
  /** One correction round for a disputed answer (`auditFix`). */
  auditFix: Setting<boolean>;
  /** USD a day (`budgetDaily`); `null` when there is no budget. */
  budgetDaily: Setting<number | null>;
  /** Reorder the configured fallback chain by each target's recent record (`rankWorkers`). */
  rankWorkers: Setting<boolean>;
  /** Wait for a cooling chain to come back instead of failing (`park`). */
  park: Setting<boolean>;
  /** Whether a long run starts the dashboard (`PITROOM_DASH=0` or `"dash": false` turn it off). */
  dash: Setting<boolean>;
  /** How long the dashboard stays without a request and with no run going (`dashIdle`). */
  dashIdle: Setting<{ text: string; ms: number }>;
  /** The config file (`PITROOM_CONFIG` or the XDG default). */
  configPath: Setting<string>;
  /** Pitroom's state dir (`PITROOM_STATE_DIR` or the XDG default). */
  stateDir: Setting<string>;
  /** The config's own workers (`workers`): ACP agents by name. */
  workers: Setting<Record<string, AcpWorker>>;
  /** MCP results of runs still going carry the dashboard's address (`PITROOM_MCP_DASH=0` turns it off). */
  mcpDash: Setting<boolean>;
}

/** Settings given as flags (each optional). */
export interface SettingFlags {
  worker?: string;
  fallback?: string[];
  maxParallel?: number;
  /** The timeout as typed (`90s`, `30m`). */
  timeout?: string;
}

/** What `resolveSettings` reads. */
export interface SettingsInput {
  config: Config;
  /** The environment (only `PITROOM_*` names are read). */
  env: { get(name: string): string | undefined };
  flags?: SettingFlags;
  /** The config path and state dir in use (the HeldSys knows them). */
  configPath: string;
  stateDir: string;
}

/** Effective settings and what was wrong on the way. */
export interface ResolvedSettings {
  settings: Settings;
  warnings: string[];
}

function validChain(text: string, known: readonly string[]): boolean {
  try {
    parseChain(text, known);
    return true;
  } catch (error) {
    if (error instanceof PitroomError) return false;
    throw error;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pickFirst<T>(
  candidates: Array<{ source: SettingSource; raw: string | undefined; what: string }>,
  parse: (raw: string) => T | null,
  fallback: T,
  warnings: string[],
  expected: string,
): Setting<T> {
  for (const c of candidates) {
    if (c.raw === undefined || c.raw === "") continue;
    const value = parse(c.raw);
    if (value !== null) return { value, source: c.source };
    warnings.push(`${c.what} "${c.raw}" is not ${expected}: ignored`);
  }
  return { value: fallback, source: "default" };
}

function resolveMaxParallel(input: SettingsInput, warnings: string[]): Setting<number> {
  const fromConfig = input.config.maxParallel;
  const picked = pickFirst<number>(
    [
      {
        source: "flag",
        raw: input.flags?.maxParallel === undefined ? undefined : String(input.flags.maxParallel),
        what: "Flag --max-parallel",
      },
      {
        source: "env",
        raw: input.env.get("PITROOM_MAX_PARALLEL"),
        what: "PITROOM_MAX_PARALLEL",
      },
      {
        source: "file",
        raw: fromConfig === undefined ? undefined : String(fromConfig),
        what: 'Config key "maxParallel"',
      },
    ],
    (raw) => (Number.isFinite(Number(raw.trim())) ? Math.floor(Number(raw.trim())) : null),
    DEFAULT_MAX_PARALLEL,
    warnings,
    "a number",
  );
  const clamped = Math.max(1, Math.min(picked.value, MAX_PARALLEL_CEILING));
  if (clamped !== picked.value) {
    warnings.push(
      `maxParallel ${picked.value} is outside 1..${MAX_PARALLEL_CEILING}: using ${clamped}`,
    );
  }
  return { value: clamped, source: picked.source };
}

/** The names of every worker: the built-in ones and the config's own. */
export function workerNames(settings: Pick<Settings, "workers">): string[] {
  return [...WORKER_NAMES, ...Object.keys(settings.workers.value)];
}

function resolveLimits(
  config: Config,
  known: readonly string[],
  warnings: string[],
): Setting<Record<string, number>> {
  if (config.limits === undefined) return { value: {}, source: "default" };
  const value: Record<string, number> = {};
  for (const [worker, limit] of Object.entries(config.limits as Record<string, unknown>)) {
    if (!(WORKER_NAMES as readonly string[]).includes(worker) && !known.includes(worker)) {
      warnings.push(`Config "limits" names an unknown worker "${worker}": ignored`);
    } else if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1) {
      warnings.push(
        `Config "limits.${worker}" should be a whole number of runs, 1 or more: ignored`,
      );
    } else value[worker] = Math.min(limit, MAX_PARALLEL_CEILING);
  }
  return { value, source: "file" };
}

function resolveModels(
  config: Config,
  known: readonly string[],
  warnings: string[],
): Setting<Record<string, string>> {
  if (config.models === undefined) return { value: {}, source: "default" };
  const value: Record<string, string> = {};
  for (const [worker, model] of Object.entries(config.models as Record<string, unknown>)) {
    if (!(WORKER_NAMES as readonly string[]).includes(worker) && !known.includes(worker)) {
      warnings.push(`Config "models" names an unknown worker "${worker}": ignored`);
    } else if (typeof model !== "string" || model.trim() === "") {
      warnings.push(`Config "models.${worker}" should be a model id: ignored`);
    } else value[worker] = model.trim();
  }
  return { value, source: "file" };
}

function resolveTiers(
  config: Config,
  known: readonly string[],
  warnings: string[],
): Record<TierName, Setting<string | null>> {
  const tiers = Object.fromEntries(
    TIERS.map((t) => [t, { value: null, source: "default" }]),
  ) as Record<TierName, Setting<string | null>>;
  for (const [name, chain] of Object.entries((config.tiers ?? {}) as Record<string, unknown>)) {
    if (!(TIERS as readonly string[]).includes(name)) {
      warnings.push(`Config "tiers" has an unknown tier "${name}" (${TIERS.join(", ")}): ignored`);
    } else if (typeof chain !== "string" || !validChain(chain, known)) {
      warnings.push(`Config "tiers.${name}" should be a worker chain like "opencode": ignored`);
    } else tiers[name as TierName] = { value: chain.trim(), source: "file" };
  }
  return tiers;
}

function resolveCosts(config: Config, warnings: string[]): Setting<Record<string, ModelCost>> {
  if (config.costs === undefined) return { value: {}, source: "default" };
  const value: Record<string, ModelCost> = {};
  for (const [model, cost] of Object.entries(config.costs as Record<string, unknown>)) {
    if (!isRecord(cost)) {
      warnings.push(`Config "costs.${model}" should be {input, output, cached}: ignored`);
      continue;
    }
    const entry: ModelCost = {};
    for (const [key, price] of Object.entries(cost)) {
      if (key !== "input" && key !== "output" && key !== "cached") {
        warnings.push(`Config "costs.${model}.${key}" is unknown and ignored`);
      } else if (typeof price !== "number" || !Number.isFinite(price) || price < 0) {
        warnings.push(`Config "costs.${model}.${key}" should be USD per million tokens: ignored`);
      } else entry[key] = price;
    }
    value[model] = entry;
  }
  return { value, source: "file" };
}

/** The default of `cacheDays`. */
export const DEFAULT_CACHE_DAYS = 7;

function resolveCacheDays(config: Config, warnings: string[]): Setting<number> {
  const raw = config.cacheDays;
  if (raw === undefined) return { value: DEFAULT_CACHE_DAYS, source: "default" };
  if (raw < 0 || raw > 365) {
    warnings.push(`Config key "cacheDays" should be 0 to 365 days: using ${DEFAULT_CACHE_DAYS}`);
    return { value: DEFAULT_CACHE_DAYS, source: "default" };
  }
  return { value: raw, source: "file" };
}

/** The audit sample rate: a number 0..1 (a bad one warns and counts as 0). */
function resolveAuditRate(config: Config, warnings: string[]): Setting<number> {
  const rate = config.audit;
  if (rate === undefined) return { value: 0, source: "default" };
  if (rate < 0 || rate > 1) {
    warnings.push(`Config "audit" should be a share of runs from 0 to 1: ignored`);
    return { value: 0, source: "default" };
  }
  return { value: rate, source: "file" };
}

function resolveBudget(config: Config, warnings: string[]): Setting<number | null> {
  const budget = config.budgetDaily;
  if (budget === undefined) return { value: null, source: "default" };
  if (!(budget > 0)) {
    warnings.push(`Config "budgetDaily" should be USD a day, more than 0: ignored`);
    return { value: null, source: "default" };
  }
  return { value: budget, source: "file" };
}

function flag(value: boolean | undefined): Setting<boolean> {
  return value === undefined ? { value: false, source: "default" } : { value, source: "file" };
}

/** Computes every effective setting from the config, the environment and the flags (pure). */
export function resolveSettings(input: SettingsInput): ResolvedSettings {
  const warnings: string[] = [];
  const { config, env, flags = {} } = input;
  const acp = readAcpWorkers(config.workers);
  warnings.push(...acp.warnings);
  const known = Object.keys(acp.workers);
  const worker = pickFirst<string>(
    [
      { source: "flag", raw: flags.worker, what: "Flag --worker" },
      { source: "env", raw: env.get("PITROOM_WORKER"), what: "PITROOM_WORKER" },
      { source: "file", raw: config.worker, what: 'Config key "worker"' },
    ],
    (raw) => (validChain(raw, known) ? raw.trim() : null),
    DEFAULT_WORKER,
    warnings,
    "a worker chain like opencode or codex:gpt-5.5,claude",
  );
  let fallback: Setting<string[]> = { value: [], source: "default" };
  if (flags.fallback !== undefined) fallback = { value: flags.fallback, source: "flag" };
  else if (config.fallback !== undefined) {
    const value = config.fallback.filter((target) => {
      if (validChain(target, known)) return true;
      warnings.push(`Config "fallback" entry "${target}" is not a worker target: ignored`);
      return false;
    });
    fallback = { value, source: "file" };
  }
  const timeout = pickFirst<{ text: string; ms: number }>(
    [
      { source: "flag", raw: flags.timeout, what: "Flag --timeout" },
      { source: "env", raw: env.get("PITROOM_TIMEOUT"), what: "PITROOM_TIMEOUT" },
      { source: "file", raw: config.timeout, what: 'Config key "timeout"' },
    ],
    (raw) => {
      const ms = durationMs(raw);
      return ms === null || ms > MAX_DURATION.ms ? null : { text: raw.trim(), ms };
    },
    { text: DEFAULT_TIMEOUT, ms: durationMs(DEFAULT_TIMEOUT)! },
    warnings,
    `a time like 90s, 30m or 1h, of at most ${MAX_DURATION.text}`,
  );
  const stallAfter = pickFirst<{ text: string; ms: number }>(
    [{ source: "file", raw: config.stallAfter, what: 'Config key "stallAfter"' }],
    (raw) => {
      const ms = durationMs(raw);
      // Under a second every pause between two events would be told as a stall.
      return ms === null || ms < 1000 || ms > MAX_DURATION.ms ? null : { text: raw.trim(), ms };
    },
    DEFAULT_STALL_AFTER,
    warnings,
    `a time like 90s, 10m or 1h, of 1s to ${MAX_DURATION.text}`,
  );
  const pricing = resolvePricing(config, env, warnings);
  const settings: Settings = {
    worker,
    fallback,
    models: resolveModels(config, known, warnings),
    tiers: resolveTiers(config, known, warnings),
    costs: resolveCosts(config, warnings),
    workerPrices: { value: pricing.workerPrices, source: pricing.workerPricesSource },
    primary: { value: pricing.primary, source: pricing.primarySource },
    price: { value: pricing.price, source: pricing.price === null ? "default" : "file" },
    maxParallel: resolveMaxParallel(input, warnings),
    limits: resolveLimits(config, known, warnings),
    timeout,
    stallAfter,
    cacheDays: resolveCacheDays(config, warnings),
    audit: resolveAuditRate(config, warnings),
    auditFix: flag(config.auditFix),
    budgetDaily: resolveBudget(config, warnings),
    rankWorkers: flag(config.rankWorkers),
    park: flag(config.park),
    dash: pickFirst<boolean>(
      [
        { source: "env", raw: env.get("PITROOM_DASH"), what: "PITROOM_DASH" },
        {
          source: "file",
          raw: config.dash === undefined ? undefined : String(config.dash),
          what: 'Config key "dash"',
        },
      ],
      (
        raw,
      ) => (/^(1|true|on)$/i.test(raw.trim())
        ? true
        : /^(0|false|off)$/i.test(raw.trim())
        ? false
        : null),
      true,
      warnings,
      "true or false (1 or 0)",
    ),
    dashIdle: pickFirst<{ text: string; ms: number }>(
      [{ source: "file", raw: config.dashIdle, what: 'Config key "dashIdle"' }],
      (raw) => {
        const ms = durationMs(raw);
        return ms === null || ms < 1000 || ms > MAX_DURATION.ms ? null : { text: raw.trim(), ms };
      },
      { text: DEFAULT_DASH_IDLE, ms: durationMs(DEFAULT_DASH_IDLE)! },
      warnings,
      `a time like 15m or 1h, of 1s to ${MAX_DURATION.text}`,
    ),
    configPath: {
      value: input.configPath,
      source: env.get("PITROOM_CONFIG") ? "env" : "default",
    },
    stateDir: {
      value: input.stateDir,
      source: env.get("PITROOM_STATE_DIR") ? "env" : "default",
    },
    mcpDash: resolveMcpDash(config, env),
    workers: { value: acp.workers, source: config.workers === undefined ? "default" : "file" },
  };
  return { settings, warnings };
}

/** `PITROOM_MCP_DASH` (`0` is off, anything else on), else the config's `mcpDash`, else on. */
function resolveMcpDash(config: Config, env: SettingsInput["env"]): Setting<boolean> {
  const raw = env.get("PITROOM_MCP_DASH");
  if (raw !== undefined && raw !== "") return { value: raw.trim() !== "0", source: "env" };
  if (config.mcpDash !== undefined) return { value: config.mcpDash, source: "file" };
  return { value: true, source: "default" };
}

/** A tier resolved to a chain. */
export interface TierChoice {
  chain: string;
  /** Set when the tier is not configured and a stand-in was used. */
  warning?: string;
}

/**
 * The chain of `tier`: the configured one, else (for `audit`) the cheap tier, else the default
 * worker, with a warning saying which stand-in was used.
 */
export function resolveTier(settings: Settings, tier: TierName): TierChoice {
  const configured = settings.tiers[tier].value;
  if (configured !== null) return { chain: configured };
  const cheap = settings.tiers.cheap.value;
  if (tier === "audit" && cheap !== null) {
    return {
      chain: cheap,
      warning: `Tier "audit" is not configured: using the cheap tier "${cheap}"`,
    };
  }
  return {
    chain: settings.worker.value,
    warning:
      `Tier "${tier}" is not configured: using the default worker "${settings.worker.value}"`,
  };
}
