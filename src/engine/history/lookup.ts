/**
 * Finding one run in the history (for `show` once its folder was cleaned): its record as it was
 * indexed, its steps and its patch.
 */
import type { DatabaseSync } from "node:sqlite";
import { recordProblem, type RunRecord } from "../../store/record.ts";
import { DamagedRecord } from "../../sys/errors.ts";
import { recordOfDoc, type Step } from "../../store/history/row.ts";
import type { Scope } from "../scope.ts";

/** A run as the history keeps it. */
export interface KeptRun {
  record: RunRecord;
  steps: Step[];
  patch: string | null;
}

/**
 * SQL that keeps the runs of a scope (scope.ts: by repository root, or by folder for a run that
 * has none), with its parameters.
 */
function scopeWhere(scope: Scope | null): { sql: string; params: string[] } {
  if (scope === null) return { sql: "1", params: [] };
  const within = (p: string) => `(cwd = ${p} OR substr(cwd, 1, length(${p}) + 1) = ${p} || '/')`;
  const byFolder = `(repo_root IS NULL AND (${within("?")} OR ${within("?")}))`;
  const folders = [scope.root, scope.root, scope.root, scope.dir, scope.dir, scope.dir];
  return scope.repo
    ? { sql: `(repo_root = ? OR ${byFolder})`, params: [scope.root, ...folders] }
    : { sql: byFolder, params: folders };
}

/**
 * The ids in the history that `typed` names: the full id (any repository's), or among the
 * scope's runs `last` or a unique prefix or suffix (more than one id: the name is ambiguous).
 */
export function matchIds(db: DatabaseSync, typed: string, scope: Scope | null): string[] {
  const exact = db.prepare("SELECT id FROM runs WHERE id = ?").get(typed) as
    | { id: string }
    | undefined;
  if (exact) return [exact.id];
  const where = scopeWhere(scope);
  if (typed === "last") {
    const row = db.prepare(`SELECT id FROM runs WHERE ${where.sql} ORDER BY n DESC LIMIT 1`)
      .get(...where.params) as { id: string } | undefined;
    return row ? [row.id] : [];
  }
  const rows = db.prepare(
    `SELECT id FROM runs WHERE (substr(id, 1, length(?)) = ? OR substr(id, -length(?)) = ?)
     AND ${where.sql} ORDER BY n LIMIT 10`,
  ).all(typed, typed, typed, typed, ...where.params) as { id: string }[];
  return rows.map((r) => r.id);
}

/** The run `id` as the history keeps it, or null. */
export function keptRun(db: DatabaseSync, id: string): KeptRun | null {
  const row = db.prepare(
    `SELECT r.n, d.task, d.answer, d.record FROM runs r LEFT JOIN run_docs d ON d.n = r.n
     WHERE r.id = ?`,
  ).get(id) as
    | { n: number; task: string | null; answer: string | null; record: string | null }
    | undefined;
  if (row === undefined) return null;
  let record: unknown = null;
  try {
    // A run's row without its texts and record (a row lost from run_docs) holds no record.
    if (row.record !== null && row.task !== null) {
      record = recordOfDoc({ task: row.task, answer: row.answer, record: row.record });
    }
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  const problem = recordProblem(record);
  if (problem !== null || (record as RunRecord).id !== id) {
    throw new DamagedRecord({
      run: id,
      file: "history.db",
      detail: `its row of the run does not hold a whole record: ${problem ?? "another run's"}`,
    });
  }
  const steps = db.prepare(
    "SELECT seq, time, type, tool, kind, target, status, text FROM steps WHERE run_n = ? ORDER BY seq",
  ).all(row.n) as unknown as Step[];
  const diff = db.prepare("SELECT patch FROM diffs WHERE run_n = ?").get(row.n) as
    | { patch: string }
    | undefined;
  return { record: record as RunRecord, steps, patch: diff?.patch ?? null };
}
