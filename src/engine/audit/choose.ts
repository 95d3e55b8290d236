/**
 * Who audits an answer: another worker and model than the one that answered, never the same.
 * The candidates are `-W` (refused when it names the answering worker), else the config's
 * `tiers.audit`, else the other workers of the audited run's chain; each must be installed. No
 * candidate left is a refusal (exit 3) that says how to configure one.
 */
import type { RunRecord, Target } from "../../store/record.ts";
import { RefusedError } from "../../sys/errors.ts";
import type { Sys } from "../../sys/mod.ts";
import { BACKENDS } from "../../workers/registry.ts";
import type { Backend, WorkerName } from "../../workers/types.ts";
import { resolveChain, targetLabel } from "../core/chain.ts";
import type { Settings } from "../core/settings.ts";

/** The target that gave a run's answer (its last attempt). */
export function answererOf(record: RunRecord): Target {
  const last = record.attempts.at(-1);
  if (last === undefined) return record.chain[0]!;
  return last.model === undefined ? { worker: last.worker } : {
    worker: last.worker,
    model: last.model,
  };
}

function other(answerer: Target) {
  return (t: Target) =>
    t.worker !== answerer.worker && (t.model === undefined || t.model !== answerer.model);
}

async function installed(
  sys: Sys,
  worker: WorkerName,
  backends: (name: WorkerName) => Backend,
): Promise<boolean> {
  try {
    return (await backends(worker).detect(sys.runner, sys.env.toObject())) !== null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Options of `auditChain`. */
export interface ChooseOptions {
  /** The auditor asked for (`-W`). */
  worker?: string;
  /** Looks up a backend. @default the registry */
  backends?: (name: WorkerName) => Backend;
}

/** The chain that audits `record`: every target another worker and model than the answerer's. */
export async function auditChain(
  sys: Sys,
  record: RunRecord,
  settings: Settings,
  options: ChooseOptions = {},
): Promise<Target[]> {
  const answerer = answererOf(record);
  const defaults = {
    worker: settings.worker.value,
    fallback: [],
    models: settings.models.value,
  };
  let candidates: Target[];
  if (options.worker !== undefined) {
    candidates = resolveChain(defaults, { worker: options.worker });
    const same = candidates.find((t) => !other(answerer)(t));
    if (same !== undefined) {
      throw new RefusedError(
        "same_auditor",
        `${targetLabel(same)} cannot audit run "${record.id}": it answered it (${
          targetLabel(answerer)
        })`,
        { hint: `choose another worker: \`pitroom audit ${record.id} -W codex\`` },
      );
    }
  } else {
    const tier = settings.tiers.audit.value;
    candidates = (tier === null ? record.chain : resolveChain(defaults, { worker: tier }))
      .filter(other(answerer));
  }
  const seen = new Set<string>();
  const backends = options.backends ?? ((name: WorkerName) => BACKENDS[name]);
  const chain: Target[] = [];
  for (const t of candidates) {
    const key = `${t.worker}:${t.model ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (await installed(sys, t.worker, backends)) chain.push(t);
  }
  if (chain.length === 0) {
    throw new RefusedError(
      "no_auditor",
      `No other worker can audit run "${record.id}": it was answered by ${
        targetLabel(answerer)
      } and ${
        candidates.length === 0 ? "no other worker is configured" : "no other one is installed"
      }`,
      { hint: 'configure one in the config: "tiers": {"audit": "codex"}' },
    );
  }
  return chain;
}
