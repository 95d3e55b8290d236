/**
 * Who audits an answer: never the worker *and* model that gave it. Another model of the same worker
 * may audit (`opencode:fake/b` audits `opencode:fake/a`); a target whose model Pitroom cannot tell
 * from the answerer's (the worker's default model on one side, a named model on the other, of the
 * same worker) may be that very model, so it does not audit either. An answer given again from
 * the cache was given by the earlier run's worker and model (when that run is gone, by any target
 * of the chain). The candidates are `-W` (refused when a target of it is, or may be, the
 * answerer), else the config's `tiers.audit`, else the other targets of the audited run's chain;
 * each must be installed. No candidate left is a refusal (exit 3) that says how to configure one.
 */
import type { HeldSys } from "../../store/state.ts";
import type { RunRecord, Target } from "../../store/record.ts";
import { RefusedError } from "../../sys/errors.ts";
import { findBackend } from "../../workers/find.ts";
import type { Backend } from "../../workers/types.ts";
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

/**
 * The targets that may have given a run's answer: its answerer; for an answer from the cache the
 * earlier run's, or (that run gone) every target of its chain.
 */
export async function answerersOf(sys: HeldSys, record: RunRecord): Promise<Target[]> {
  if (record.cached === undefined) return [answererOf(record)];
  const earlier = await sys.state.runs.read(record.cached.from);
  if (earlier !== null && earlier.cached === undefined) return [answererOf(earlier)];
  return record.chain.length > 0 ? record.chain : [answererOf(record)];
}

/** A model id as typed, without the spaces around it (`opencode: fake/a` names fake/a). */
function modelOf(target: Target): string | undefined {
  return target.model?.trim() || undefined;
}

/** How a would-be auditor stands to the answerer. */
export type Relation = "other" | "same" | "unsure";

/**
 * How a would-be auditor stands to the answerer: another worker or another named model is
 * `other`; the same worker with the same model (or both on the worker's default) is `same`; the
 * same worker with a model named on one side only is `unsure` (the default may be that model).
 */
export function auditorRelation(answerer: Target, auditor: Target): Relation {
  if (auditor.worker !== answerer.worker) return "other";
  const [a, b] = [modelOf(answerer), modelOf(auditor)];
  if (a === b) return "same";
  if (a === undefined || b === undefined) return "unsure";
  return "other";
}

/** The closest relation of `auditor` to any of `answerers`, and the answerer it is to. */
function closest(answerers: readonly Target[], auditor: Target): [Relation, Target] {
  const rank: Record<Relation, number> = { other: 0, unsure: 1, same: 2 };
  let best: [Relation, Target] = ["other", answerers[0]!];
  for (const a of answerers) {
    const relation = auditorRelation(a, auditor);
    if (rank[relation] > rank[best[0]]) best = [relation, a];
  }
  return best;
}

function answeredBy(answerers: readonly Target[]): string {
  const labels = answerers.map(targetLabel);
  return labels.length === 1 ? labels[0]! : `one of ${labels.join(", ")}`;
}

async function installed(
  sys: HeldSys,
  worker: string,
  backends: (name: string) => Backend | undefined | Promise<Backend | undefined>,
): Promise<boolean> {
  try {
    const backend = await backends(worker);
    return backend !== undefined && (await backend.detect(sys.runner, sys.env.toObject())) !== null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Options of `auditChain`. */
export interface ChooseOptions {
  /** The auditor asked for (`-W`). */
  worker?: string;
  /**
   * Looks up a backend.
   * @default the built-in and configured workers, each loaded when asked for (workers/find.ts)
   */
  backends?: (name: string) => Backend;
}

/** Refuses an auditor asked for by name that is, or may be, the worker and model that answered. */
function refuseSelf(record: RunRecord, answerers: readonly Target[], t: Target): void {
  const [relation, answerer] = closest(answerers, t);
  if (relation === "same") {
    throw new RefusedError(
      "same_auditor",
      `${targetLabel(t)} cannot audit run "${record.id}": it answered it (${
        answeredBy(answerers)
      })`,
      { hint: `choose another model or worker: \`pitroom audit ${record.id} -W codex\`` },
    );
  }
  if (relation === "unsure") {
    const named = (modelOf(t) ?? modelOf(answerer))!;
    throw new RefusedError(
      "same_auditor",
      `${targetLabel(t)} cannot audit run "${record.id}": it was answered by ${
        answeredBy(answerers)
      }, and whether ${t.worker}'s default model is ${named} is not known`,
      {
        hint: modelOf(answerer) === undefined
          ? `choose another worker: \`pitroom audit ${record.id} -W codex\` (and name ${t.worker}'s model in the config's "models" for the runs to come)`
          : `name the model: \`pitroom audit ${record.id} -W ${t.worker}:MODEL\``,
      },
    );
  }
}

/** The chain that audits `record`: every target that is not the answerer's worker and model. */
export async function auditChain(
  sys: HeldSys,
  record: RunRecord,
  settings: Settings,
  options: ChooseOptions = {},
): Promise<Target[]> {
  const answerers = await answerersOf(sys, record);
  const defaults = {
    worker: settings.worker.value,
    fallback: [],
    models: settings.models.value,
    workers: Object.keys(settings.workers.value),
  };
  let candidates: Target[];
  let unsure: Target[] = [];
  if (options.worker !== undefined) {
    candidates = resolveChain(defaults, { worker: options.worker });
    for (const t of candidates) refuseSelf(record, answerers, t);
  } else {
    const tier = settings.tiers.audit.value;
    const all = tier === null ? record.chain : resolveChain(defaults, { worker: tier });
    candidates = all.filter((t) => closest(answerers, t)[0] === "other");
    unsure = all.filter((t) => closest(answerers, t)[0] === "unsure");
  }
  const seen = new Set<string>();
  const backends = options.backends ??
    ((name: string) => findBackend(name, settings.workers.value));
  const chain: Target[] = [];
  for (const t of candidates) {
    const key = `${t.worker}:${modelOf(t) ?? ""}`;
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
        answeredBy(answerers)
      } and ${why}`,
      {
        hint: `configure one in the config: "tiers": {"audit": "codex"} (or "${
          answerers[0]!.worker
        }:MODEL")`,
      },
    );
  }
  return chain;
}
