/**
 * Finding one run in the history (for `show` once its folder was cleaned): its record as it was
 * indexed, its steps and its patch.
 */
import type { DatabaseSync } from "node:sqlite";
import { isRunRecord, type RunRecord } from "../../store/record.ts";
import { recordOfDoc, type Step } from "../../store/history/row.ts";

/** A run as the history keeps it. */
export interface KeptRun {
  record: RunRecord;
  steps: Step[];
  patch: string | null;
}

/**
 * The ids in the history that `typed` names: the full id, `last`, or a unique prefix or suffix
 * (more than one id means the name is ambiguous).
 */
export function matchIds(db: DatabaseSync, typed: string): string[] {
  if (typed === "last") {
    const row = db.prepare("SELECT id FROM runs ORDER BY n DESC LIMIT 1").get() as
      | { id: string }
      | undefined;
    return row ? [row.id] : [];
  }
  const exact = db.prepare("SELECT id FROM runs WHERE id = ?").get(typed) as
    | { id: string }
    | undefined;
  if (exact) return [exact.id];
  const rows = db.prepare(
    `SELECT id FROM runs WHERE substr(id, 1, length(?1)) = ?1 OR substr(id, -length(?1)) = ?1
     ORDER BY n LIMIT 10`,
  ).all(typed) as { id: string }[];
  return rows.map((r) => r.id);
}

/** The run `id` as the history keeps it, or null. */
export function keptRun(db: DatabaseSync, id: string): KeptRun | null {
  const row = db.prepare(
    "SELECT r.n, d.task, d.answer, d.record FROM runs r JOIN run_docs d ON d.n = r.n WHERE r.id = ?",
  ).get(id) as
    | { n: number; task: string; answer: string | null; record: string }
    | undefined;
  if (row === undefined) return null;
  const record = recordOfDoc(row);
  if (!isRunRecord(record)) return null;
  const steps = db.prepare(
    "SELECT seq, time, type, tool, kind, target, status, text FROM steps WHERE run_n = ? ORDER BY seq",
  ).all(row.n) as unknown as Step[];
  const diff = db.prepare("SELECT patch FROM diffs WHERE run_n = ?").get(row.n) as
    | { patch: string }
    | undefined;
  return { record, steps, patch: diff?.patch ?? null };
}
