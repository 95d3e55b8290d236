/**
 * Searching the history: full text over the task, the answer and the steps, with filters,
 * newest first. With a text, each hit carries a snippet of the best matching column.
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { OutcomeClass } from "../../events/mod.ts";
import type { SearchHit } from "../../store/history/row.ts";
import { ftsQuery } from "./query.ts";

/** Which runs a search keeps. */
export interface SearchFilter {
  text?: string;
  /** A model id, or `worker:model`. */
  model?: string;
  worker?: string;
  /** A state; `problem` is every run that did not end `done`. */
  state?: "done" | "problem" | "lost";
  outcome?: OutcomeClass;
  group?: string;
  /** Runs that ended at or after this time (ms). */
  since?: number;
}

/** Options of `searchRuns`. */
export interface SearchOptions {
  /** @default 20 */
  limit?: number;
  /** Hits to skip first (paging). @default 0 */
  offset?: number;
  /** What goes around a match in a snippet. @default ["**", "**"] */
  marks?: [string, string];
}

export type { SearchHit };

/** A hit's row as SQLite gives it (the values are the record's, as history.db keeps them). */
interface HitRow {
  id: string;
  created_at: number;
  ended_at: number | null;
  duration_ms: number | null;
  task: string;
  worker: SearchHit["worker"];
  model: string | null;
  mode: SearchHit["mode"];
  run_group: string | null;
  state: SearchHit["state"];
  outcome: SearchHit["outcome"];
  exit_code: number | null;
  changed_files: number;
  saved: number | null;
  answer: string | null;
  message: string | null;
  refs_verified: number | null;
  refs_total: number | null;
  host: string | null;
  snippet?: string;
}

const COLUMNS = [
  "id",
  "created_at",
  "ended_at",
  "duration_ms",
  "worker",
  "model",
  "mode",
  "run_group",
  "state",
  "outcome",
  "exit_code",
  "changed_files",
  "saved",
  "message",
  "refs_verified",
  "refs_total",
  "host",
].map((c) => `r.${c}`).join(", ") + ", d.task, d.answer";

/** The WHERE clauses of the filters (text aside) and their parameters. */
function filterClauses(filter: SearchFilter): { where: string[]; params: SQLInputValue[] } {
  const where: string[] = [];
  const params: SQLInputValue[] = [];
  if (filter.model !== undefined) {
    where.push("(r.model = ? OR r.worker || ':' || r.model = ?)");
    params.push(filter.model, filter.model);
  }
  if (filter.worker !== undefined) {
    where.push("r.worker = ?");
    params.push(filter.worker);
  }
  if (filter.state === "problem") where.push("r.state <> 'done'");
  else if (filter.state !== undefined) {
    where.push("r.state = ?");
    params.push(filter.state);
  }
  if (filter.outcome !== undefined) {
    where.push("r.outcome = ?");
    params.push(filter.outcome);
  }
  if (filter.group !== undefined) {
    where.push("r.run_group = ?");
    params.push(filter.group);
  }
  if (filter.since !== undefined) {
    where.push("r.ended_at >= ?");
    params.push(filter.since);
  }
  return { where, params };
}

function toHit(row: HitRow): SearchHit {
  return {
    id: row.id,
    createdAt: row.created_at,
    endedAt: row.ended_at,
    durationMs: row.duration_ms,
    task: row.task,
    worker: row.worker,
    model: row.model,
    mode: row.mode,
    group: row.run_group,
    state: row.state,
    outcome: row.outcome,
    exit: row.exit_code,
    changedFiles: row.changed_files,
    saved: row.saved,
    answer: row.answer,
    message: row.message,
    refs: row.refs_total === null ? null : `${row.refs_verified ?? 0}/${row.refs_total}`,
    host: row.host,
    ...(row.snippet === undefined ? {} : { snippet: row.snippet }),
  };
}

/** Finds runs, newest first. */
export function searchRuns(
  db: DatabaseSync,
  filter: SearchFilter,
  options: SearchOptions = {},
): SearchHit[] {
  const limit = options.limit ?? 20;
  const offset = options.offset ?? 0;
  const [open, close] = options.marks ?? ["**", "**"];
  const { where, params } = filterClauses(filter);
  const match = filter.text === undefined ? null : ftsQuery(filter.text);
  if (filter.text !== undefined && match === null) return [];
  let sql: string;
  if (match === null) {
    sql = `SELECT ${COLUMNS} FROM runs r JOIN run_docs d ON d.n = r.n
      ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY r.n DESC LIMIT ? OFFSET ?`;
    params.push(limit, offset);
  } else {
    sql = `SELECT ${COLUMNS}, snippet(runs_fts, -1, ?, ?, '…', 16) AS snippet
      FROM runs_fts JOIN runs r ON r.n = runs_fts.rowid JOIN run_docs d ON d.n = r.n
      WHERE runs_fts MATCH ?${where.map((w) => ` AND ${w}`).join("")}
      ORDER BY runs_fts.rowid DESC LIMIT ? OFFSET ?`;
    params.unshift(open, close, match);
    params.push(limit, offset);
  }
  return (db.prepare(sql).all(...params) as unknown as HitRow[]).map(toHit);
}
