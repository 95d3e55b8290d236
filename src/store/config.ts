/**
 * The config file (`$XDG_CONFIG_HOME/pitroom/config.json`): read tolerantly. Unknown keys and
 * wrong types are warnings, never fatal; each setting remembers where it came from.
 */
import { readJsonOrNull } from "../sys/atomic.ts";
import { own } from "../sys/own.ts";

/** The settings Pitroom reads from its config file. */
export interface Config {
  /** The default worker (chain syntax allowed: `opencode:fake/a,codex`). */
  worker?: string;
  /** Targets tried after the worker, in order. */
  fallback?: string[];
  /** Default model per backend. */
  models?: Record<string, string>;
  /** Tier name -> worker chain. */
  tiers?: Record<string, string>;
  /** What a model costs, USD per million tokens (read as `workerPrices` too). */
  costs?: Record<string, { input?: number; output?: number; cached?: number }>;
  /** What a worker model costs, USD per million tokens (over the built-in price table). */
  workerPrices?: Record<string, { input?: number; output?: number; cached?: number }>;
  /** The primary model savings are measured against (`sonnet`, `opus`, `gpt-5`, `custom`). */
  primary?: string;
  /** The primary's price when `primary` is `custom`, USD per million tokens. */
  price?: { input?: number; output?: number; cached?: number };
  /** @default 20 */
  maxParallel?: number;
  /** At most this many runs of a worker at once (`{"gemini": 2}`), within maxParallel. */
  limits?: Record<string, number>;
  /** Default run timeout (`30m`). */
  timeout?: string;
  /** A running run whose worker sent no event for this long shows as stalled (`10m`). */
  stallAfter?: string;
  /** Default caps of every run: `{"maxTokens": 2000000, "maxCost": 1, "maxSteps": 200}`. */
  caps?: Record<string, unknown>;
  /** `"auto"`, `"required"`, `"off"`, or `{"mode": ..., "writable": [folders]}` (src/confine/sandbox/). */
  sandbox?: unknown;
  /** Desktop notifications when background runs end (off by default; src/engine/host/notify.ts). */
  notify?: boolean;
  /** A shell command that shows a notification instead (gets PITROOM_NOTIFY_* variables). */
  notifyCommand?: string;
  /** Days a read answer that held up may be given again for the same question (0: off). @default 7 */
  cacheDays?: number;
  /** Share of finished read answers audited by another worker, 0..1. @default 0 */
  audit?: number;
  /** One correction round in the worker's own session for a disputed answer. @default false */
  auditFix?: boolean;
  /** USD a day: a warning at 80%, only free workers at 100%. */
  budgetDaily?: number;
  /** Reorder the fallback chain by each target's recent record. @default false */
  rankWorkers?: boolean;
  /**
   * When every target of a run's chain is cooling down (rate limit, quota), wait for the first
   * to come back, within the run's timeout, instead of failing. @default false
   */
  park?: boolean;
  /** MCP results of runs still going carry the dashboard's address. @default true */
  mcpDash?: boolean;
  /** False: a long run does not start the dashboard. @default true */
  dash?: boolean;
  /** How long the dashboard stays without a request (and no run going) before it stops. @default "15m" */
  dashIdle?: string;
  /** Other machines workers can run on: `{"box": {"ssh": "user@box", "dir": "~/pitroom-work"}}` (engine/remote/). */
  hosts?: Record<string, unknown>;
  /** Workers of the config's own: `{"NAME": {"acp": ["cmd", "arg"], "env": ["VAR"]}}` (ACP agents). */
  workers?: Record<string, unknown>;
}

type Kind = "string" | "number" | "boolean" | "string[]" | "record" | "string|record";
const KEYS: Record<keyof Config, Kind> = {
  worker: "string",
  fallback: "string[]",
  models: "record",
  tiers: "record",
  costs: "record",
  workerPrices: "record",
  primary: "string",
  price: "record",
  maxParallel: "number",
  limits: "record",
  timeout: "string",
  stallAfter: "string",
  caps: "record",
  sandbox: "string|record",
  notify: "boolean",
  notifyCommand: "string",
  cacheDays: "number",
  audit: "number",
  auditFix: "boolean",
  budgetDaily: "number",
  rankWorkers: "boolean",
  park: "boolean",
  mcpDash: "boolean",
  dash: "boolean",
  dashIdle: "string",
  hosts: "record",
  workers: "record",
};

/** Every key the config file takes (the skills' drift test checks the names they use). */
export const CONFIG_KEYS = Object.keys(KEYS) as (keyof Config)[];

/** A loaded config with its warnings. */
export interface LoadedConfig {
  config: Config;
  warnings: string[];
  path: string;
  exists: boolean;
}

function fits(kind: Kind, value: unknown): boolean {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "string[]":
      return Array.isArray(value) && value.every((v) => typeof v === "string");
    case "record":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "string|record":
      return typeof value === "string" || fits("record", value);
  }
}

/** Reads the config file; a missing file is an empty config. */
export async function loadConfig(path: string): Promise<LoadedConfig> {
  let raw: unknown;
  try {
    raw = await readJsonOrNull(path);
  } catch (error) {
    if (error instanceof SyntaxError) {
      return {
        config: {},
        warnings: [`Config "${path}" is not valid JSON: ${error.message}`],
        path,
        exists: true,
      };
    }
    throw error;
  }
  if (raw === null) return { config: {}, warnings: [], path, exists: false };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return { config: {}, warnings: [`Config "${path}" is not a JSON object`], path, exists: true };
  }
  const config: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    // Own keys only: `constructor` or `toString` is not a setting of every object.
    const kind = own(KEYS, key);
    if (kind === undefined) {
      warnings.push(`Config key "${key}" is unknown and ignored`);
    } else if (!fits(kind, value)) {
      warnings.push(`Config key "${key}" should be a ${kind}: ignored`);
    } else {
      config[key] = value;
    }
  }
  return { config: config as Config, warnings, path, exists: true };
}
