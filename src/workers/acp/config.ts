/**
 * The config's ACP workers (`"workers": {"NAME": {"acp": ["cmd", "arg", ...]}}`), read tolerantly
 * (pure): each entry checked, a bad one a warning and left out. A name is a worker name wherever
 * one is taken (`-W`, chains, tiers, crews, MCP): letters, digits, `-` and `_`, starting with a
 * letter, and not a built-in worker's. `env` names the credential variables the agent needs
 * kept (Pitroom scrubs credential-looking variables from every worker's environment).
 */
import { WORKER_NAMES } from "../names.ts";

/** One configured ACP worker. */
export interface AcpWorker {
  /** The command that starts the agent in ACP mode (program and arguments). */
  acp: string[];
  /** Variables of the caller's environment the agent keeps although they look like credentials. */
  env?: string[];
}

/** A plain JSON object (here, not from ../_json.ts: every command reads the settings, and one
 * module less is loaded). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A valid worker name of the config's own. */
export const WORKER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

/** The configured ACP workers and what was wrong with the others. */
export interface AcpWorkers {
  workers: Record<string, AcpWorker>;
  warnings: string[];
}

/** Reads the config's `workers` value (pure). */
export function readAcpWorkers(raw: unknown): AcpWorkers {
  const workers: Record<string, AcpWorker> = {};
  const warnings: string[] = [];
  if (raw === undefined) return { workers, warnings };
  if (!isObject(raw)) {
    return { workers, warnings: ['Config key "workers" should be a record: ignored'] };
  }
  for (const [name, entry] of Object.entries(raw)) {
    const where = `Config "workers.${name}"`;
    if (!WORKER_NAME.test(name)) {
      warnings.push(`${where}: a worker name is letters, digits, - and _ (from a letter): ignored`);
    } else if ((WORKER_NAMES as readonly string[]).includes(name)) {
      warnings.push(`${where}: "${name}" is a built-in worker: ignored`);
    } else if (!isObject(entry)) {
      warnings.push(`${where} should be {"acp": ["command", "arg", ...]}: ignored`);
    } else if (
      !Array.isArray(entry.acp) || entry.acp.length === 0 ||
      !entry.acp.every((a) => typeof a === "string") || entry.acp[0] === ""
    ) {
      warnings.push(`${where}.acp should be the agent's command as a list of strings: ignored`);
    } else if (
      entry.env !== undefined &&
      !(Array.isArray(entry.env) && entry.env.every((e) => typeof e === "string"))
    ) {
      warnings.push(`${where}.env should be a list of variable names: ignored`);
    } else {
      const unknown = Object.keys(entry).filter((k) => k !== "acp" && k !== "env");
      for (const key of unknown) warnings.push(`${where}.${key} is unknown and ignored`);
      workers[name] = {
        acp: [...entry.acp as string[]],
        ...(entry.env === undefined ? {} : { env: [...entry.env as string[]] }),
      };
    }
  }
  return { workers, warnings };
}
