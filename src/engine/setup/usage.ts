/**
 * What each worker and model has used: runs, tokens and time, aggregated from the run records in
 * the state dir. A run's tokens count for its last attempt (the one that gave the outcome); every
 * attempt counts its own time.
 */
import type { Runs } from "../../store/state.ts";
import type { RunRecord } from "../../store/record.ts";

/** The usage of one worker and model. */
export interface ModelUsage {
  /** A built-in worker or one of the config's own. */
  worker: string;
  /** The model id; `null` for the worker's default model. */
  model: string | null;
  /** Attempts made with this model. */
  attempts: number;
  /** Attempts that ended `ok`. */
  ok: number;
  tokens: { input: number; output: number; cached: number };
  /** Time the attempts took, ms. */
  timeMs: number;
  /** When it was last started (ms since the epoch). */
  lastUsed: number;
}

/** The key of a worker and model in usage lookups. */
export function usageKey(worker: string, model: string | null | undefined): string {
  return `${worker}\u0000${model ?? ""}`;
}

/** Aggregates run records into usage per worker and model, most used first (pure). */
export function aggregateUsage(records: readonly RunRecord[]): ModelUsage[] {
  const rows = new Map<string, ModelUsage>();
  for (const record of records) {
    record.attempts.forEach((attempt, i) => {
      const key = usageKey(attempt.worker, attempt.model);
      let row = rows.get(key);
      if (row === undefined) {
        row = {
          worker: attempt.worker,
          model: attempt.model ?? null,
          attempts: 0,
          ok: 0,
          tokens: { input: 0, output: 0, cached: 0 },
          timeMs: 0,
          lastUsed: 0,
        };
        rows.set(key, row);
      }
      row.attempts++;
      if (attempt.outcome === "ok") row.ok++;
      if (attempt.endedAt !== undefined) {
        row.timeMs += Math.max(0, attempt.endedAt - attempt.startedAt);
      }
      row.lastUsed = Math.max(row.lastUsed, attempt.startedAt);
      if (i === record.attempts.length - 1) {
        const t = record.progress.tokens;
        row.tokens.input += t.input;
        row.tokens.output += t.output;
        row.tokens.cached += t.cached;
      }
    });
  }
  return [...rows.values()].sort((a, b) => b.attempts - a.attempts || b.lastUsed - a.lastUsed);
}

/** Reads every run record in the state dir and aggregates its usage. */
export async function collectUsage(runs: Runs): Promise<ModelUsage[]> {
  const records: RunRecord[] = [];
  for (const id of await runs.ids()) {
    const record = await runs.read(id);
    if (record !== null) records.push(record);
  }
  return aggregateUsage(records);
}
