/**
 * `rankWorkers`: the configured fallback chain reordered by each target's recent record. The
 * rule: over the last 30 days, each target's attempts (history.db) give it a score of
 * `(ok - disagreed - partly / 2) / attempts`, where `disagreed` and `partly` count its answers
 * an audit found wrong (DISAGREE) or partly wrong (PARTLY). Only targets with at least
 * `RANK_MIN_RUNS` attempts are ranked; they are sorted by score, best first, into the places
 * ranked targets held, while a target with fewer attempts keeps its place. Ties keep the
 * configured order. An explicit `-W` or `--tier` is never reordered (build.ts asks only for the
 * configured chain).
 */
import type { HeldSys } from "../../store/state.ts";
import type { Target } from "../../store/record.ts";

/** Attempts a target needs before it is ranked. */
export const RANK_MIN_RUNS = 5;
/** How far back the record reaches. */
export const RANK_WINDOW_MS = 30 * 86_400_000;

/** One target's recent record. */
export interface TargetRecord {
  attempts: number;
  ok: number;
  /** Answers an audit disagreed with. */
  disagreed: number;
  /** Answers an audit partly disputed. */
  partly: number;
}

/** The key of a target in the records: `worker` or `worker:model`. */
export function targetKey(target: { worker: string; model?: string | null | undefined }): string {
  return target.model ? `${target.worker}:${target.model}` : target.worker;
}

/** A record's score (see the module doc). */
export function scoreOf(r: TargetRecord): number {
  return (r.ok - r.disagreed - r.partly / 2) / r.attempts;
}

/** The chain ranked by the records (pure); `changed` when the order is not the configured one. */
export function rankChain(
  chain: readonly Target[],
  records: ReadonlyMap<string, TargetRecord>,
  options: { minRuns?: number } = {},
): { chain: Target[]; changed: boolean } {
  const min = options.minRuns ?? RANK_MIN_RUNS;
  const ranked = (t: Target) => (records.get(targetKey(t))?.attempts ?? 0) >= min;
  const places = chain.flatMap((t, i) => (ranked(t) ? [i] : []));
  const order = places.map((i) => chain[i]!).map((t, i) => ({
    t,
    i,
    s: scoreOf(records.get(targetKey(t))!),
  }))
    .sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.t);
  const result = [...chain];
  places.forEach((place, k) => (result[place] = order[k]!));
  return { chain: result, changed: result.some((t, i) => t !== chain[i]) };
}

/** Each target's record since `since`, from history.db (empty without one). */
export async function targetRecords(
  sys: HeldSys,
  since: number,
): Promise<Map<string, TargetRecord>> {
  const records = new Map<string, TargetRecord>();
  const { openExisting } = await import("../../store/history/db.ts");
  const history = await openExisting(sys);
  if (history === null) return records;
  using _ = history;
  const get = (key: string) => {
    let r = records.get(key);
    if (r === undefined) records.set(key, r = { attempts: 0, ok: 0, disagreed: 0, partly: 0 });
    return r;
  };
  const attempts = history.db.prepare(
    `SELECT a.worker, a.model, COUNT(*) AS attempts, COALESCE(SUM(a.outcome = 'ok'), 0) AS ok
     FROM attempts a JOIN runs r ON r.n = a.run_n
     WHERE r.ended_at >= ? AND a.outcome IS NOT NULL GROUP BY a.worker, a.model`,
  ).all(since) as { worker: string; model: string | null; attempts: number; ok: number }[];
  for (const row of attempts) {
    const r = get(targetKey(row));
    r.attempts += row.attempts;
    r.ok += row.ok;
  }
  const audits = history.db.prepare(
    `SELECT r.worker, r.model, json_extract(d.record, '$.audit.verdict') AS verdict,
       COUNT(*) AS runs
     FROM runs r JOIN run_docs d ON d.n = r.n
     WHERE r.ended_at >= ? AND json_extract(d.record, '$.audit.state') = 'done'
     GROUP BY r.worker, r.model, verdict`,
  ).all(since) as { worker: string; model: string | null; verdict: string; runs: number }[];
  for (const row of audits) {
    const r = get(targetKey(row));
    if (row.verdict === "DISAGREE") r.disagreed += row.runs;
    if (row.verdict === "PARTLY") r.partly += row.runs;
  }
  return records;
}
