/**
 * Who audits an answer: never the worker *and* model that gave it. Another model of the same worker
 * may audit (`opencode:fake/b` audits `opencode:fake/a`); a target whose model Pitroom cannot tell
 * from the answerer's (the worker's default model on one side, a named model on the other, of the
 * same worker) may be that very model, so it does not audit either. The candidates are `-W`
 * (refused when a target of it is, or may be, the answerer), else the config's `tiers.audit`,
 * else the other targets of the audited run's chain; each must be installed. No candidate left
 * is a refusal (exit 3) that says how to configure one.
 */
import type { RunRecord, Target } from "../../store/record.ts";
import { RefusedError } from "../../sys/errors.ts";
import type { Sys } from "../../sys/mod.ts";
import { BACKENDS } from "../../workers/registry.ts";
import type { Backend, WorkerName } from "../../workers/types.ts";
import { resolveChain, targetLabel } from "../chain.ts";
import type { Settings } from "../settings.ts";

/** The target that gave a run's answer (its last attempt). */
export function answererOf(record: RunRecord): Target {
  const last = record.attempts.at(-1);
  if (last === undefined) return record.chain[0]!;
  return last.model === undefined ? { worker: last.worker } : {
    worker: last.worker,
    model: last.model,
  };
}

/**
 * How a would-be auditor stands to the answerer: another worker or another named model is
 * `other`; the same worker with the same model (or both on the worker's default) is `same`; the
 * same worker with a model named on one side only is `unsure` (the default may be that model).
 */
export function auditorRelation(answerer: Target, auditor: Target): "other" | "same" | "unsure" {
  if (auditor.worker !== answerer.worker) return "other";
  if (auditor.model === answerer.model) return "same";
  if (auditor.model === undefined || answerer.model === undefined) return "unsure";
  return "other";
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

/** Refuses an auditor asked for by name that is, or may be, the worker and model that answered. */
function refuseSelf(record: RunRecord, answerer: Target, t: Target): void {
  const relation = auditorRelation(answerer, t);
  if (relation === "same") {
    throw new RefusedError(
      "same_auditor",
      `${targetLabel(t)} cannot audit run "${record.id}": it answered it (${
        targetLabel(answerer)
      })`,
      { hint: `choose another model or worker: \`pitroom audit ${record.id} -W codex\`` },
    );
  }
  if (relation === "unsure") {
    const named = (t.model ?? answerer.model)!;
    throw new RefusedError(
      "same_auditor",
      `${targetLabel(t)} cannot audit run "${record.id}": it was answered by ${
        targetLabel(answerer)
      }, and whether ${t.worker}'s default model is ${named} is not known`,
      {
        hint: answerer.model === undefined
          ? `choose another worker: \`pitroom audit ${record.id} -W codex\` (and name ${t.worker}'s model in the config's "models" for the runs to come)`
          : `name the model: \`pitroom audit ${record.id} -W ${t.worker}:MODEL\``,
      },
    );
  }
}

/** The chain that audits `record`: every target that is not the answerer's worker and model. */
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
  let unsure: Target[] = [];
  if (options.worker !== undefined) {
    candidates = resolveChain(defaults, { worker: options.worker });
    for (const t of candidates) refuseSelf(record, answerer, t);
  } else {
    const tier = settings.tiers.audit.value;
    const all = tier === null ? record.chain : resolveChain(defaults, { worker: tier });
    candidates = all.filter((t) => auditorRelation(answerer, t) === "other");
    unsure = all.filter((t) => auditorRelation(answerer, t) === "unsure");
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
    const why = candidates.length > 0
      ? "no other one is installed"
      : unsure.length > 0
      ? `${unsure.map(targetLabel).join(", ")} may be that very model`
      : "no other worker or model is configured";
    throw new RefusedError(
      "no_auditor",
      `No other worker or model can audit run "${record.id}": it was answered by ${
        targetLabel(answerer)
      } and ${why}`,
      {
        hint:
          `configure one in the config: "tiers": {"audit": "codex"} (or "${answerer.worker}:MODEL")`,
      },
    );
  }
  return chain;
}
