/**
 * Writing runs into history.db: one run replaces whatever the database held for it (its row,
 * attempts, steps, diff and full-text entry), so indexing the same run twice, live or from an
 * import, leaves the same rows.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { RunRecord } from "../record.ts";
import { attemptsOf, docRow, recordOfDoc, rowidOf, runRow, type Step } from "./row.ts";
import { type Handover, withHandovers } from "../returned.ts";
import type { DamagedFile } from "./files.ts";

/** What is indexed for one run. */
export interface RunFiles {
  record: RunRecord;
  steps: Step[];
  /** The patch text, when the run kept one. */
  patch: string | null;
  /**
   * A damaged events file or patch: the history keeps the steps or diff it has for the run
   * (what was read when the file was whole) instead of what could be read now; a run new to it
   * gets the steps read before the damage and no diff.
   */
  keep?: { steps: boolean; patch: boolean };
  /** The damaged files found (for the import's list). */
  damaged?: DamagedFile[];
  /**
   * What was handed over of the run, read inside the write's transaction: a handover recorded
   * while the run is indexed is either read here or updates the row after (`writeReturned`).
   */
  handovers?: () => Handover[];
}

/** The columns of `runs`, in the order of the insert. */
const RUN_COLUMNS = [
  "id",
  "created_at",
  "started_at",
  "ended_at",
  "duration_ms",
  "worker",
  "model",
  "mode",
  "run_group",
  "state",
  "outcome",
  "exit_code",
  "message",
  "cwd",
  "repo_root",
  "steps",
  "tools",
  "tokens_in",
  "tokens_out",
  "tokens_cached",
  "tokens_reasoning",
  "worker_cost",
  "cost_source",
  "primary_model",
  "primary_cost",
  "saved",
  "returned_tokens",
  "changed_files",
  "isolated",
  "applied",
  "refs_verified",
  "refs_total",
  "host",
] as const;

/** Prepared statements for writing runs; reuse one for many runs (an import). */
export class RunWriter {
  #db: DatabaseSync;
  #old: StatementSync;
  #ftsDelete: StatementSync;
  #deletes: Record<string, StatementSync>;
  #insertRun: StatementSync;
  #insertDoc: StatementSync;
  #insertFts: StatementSync;
  #insertAttempt: StatementSync;
  #insertStep: StatementSync;
  #insertDiff: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#old = db.prepare("SELECT task, answer, steps_text FROM run_docs WHERE n = ?");
    this.#ftsDelete = db.prepare(
      "INSERT INTO runs_fts (runs_fts, rowid, task, answer, steps_text) VALUES ('delete', ?, ?, ?, ?)",
    );
    this.#deletes = Object.fromEntries(
      ["attempts", "steps", "diffs"].map((
        t,
      ) => [t, db.prepare(`DELETE FROM ${t} WHERE run_n = ?`)]),
    );
    this.#deletes.docs = db.prepare("DELETE FROM run_docs WHERE n = ?");
    this.#deletes.runs = db.prepare("DELETE FROM runs WHERE n = ?");
    this.#insertRun = db.prepare(
      `INSERT INTO runs (n, ${RUN_COLUMNS.join(", ")}) VALUES (?${
        ", ?".repeat(RUN_COLUMNS.length)
      })`,
    );
    this.#insertDoc = db.prepare(
      "INSERT INTO run_docs (n, task, answer, steps_text, record) VALUES (?, ?, ?, ?, ?)",
    );
    this.#insertFts = db.prepare(
      "INSERT INTO runs_fts (rowid, task, answer, steps_text) VALUES (?, ?, ?, ?)",
    );
    this.#insertAttempt = db.prepare(
      "INSERT INTO attempts (run_n, seq, worker, model, outcome, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.#insertStep = db.prepare(
      "INSERT INTO steps (run_n, seq, time, type, tool, kind, target, status, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.#insertDiff = db.prepare("INSERT INTO diffs (run_n, patch) VALUES (?, ?)");
  }

  /** Writes runs in one transaction (all or none). */
  write(runs: RunFiles[]): void {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      for (const run of runs) this.#writeOne(run);
      this.#db.exec("COMMIT");
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  #writeOne({ record: given, steps, patch, keep, handovers }: RunFiles): void {
    const record = handovers === undefined ? given : withHandovers(given, handovers());
    // An audit (and its correction round) is not a run of its own: its verdict, tokens and cost
    // are kept on the audited run, so stats and savings never count it.
    if (record.auditOf !== undefined) return;
    const n = rowidOf(record.id);
    const old = this.#old.get(n) as
      | { task: string; answer: string | null; steps_text: string }
      | undefined;
    // What a damaged file can no longer give, the history keeps as it had it.
    const keepSteps = keep?.steps === true && old !== undefined;
    const keepPatch = keep?.patch === true && old !== undefined;
    if (old !== undefined) {
      this.#ftsDelete.run(n, old.task, old.answer, old.steps_text);
      for (const [table, d] of Object.entries(this.#deletes)) {
        if ((table === "steps" && keepSteps) || (table === "diffs" && keepPatch)) continue;
        d.run(n);
      }
    }
    const row = runRow(record);
    this.#insertRun.run(n, ...RUN_COLUMNS.map((c) => row[c] ?? null));
    const doc = docRow(record, steps);
    const stepsText = keepSteps ? old!.steps_text : doc.steps_text;
    this.#insertDoc.run(n, doc.task, doc.answer, stepsText, doc.record);
    this.#insertFts.run(n, doc.task, doc.answer, stepsText);
    for (const a of attemptsOf(record)) {
      this.#insertAttempt.run(n, a.seq, a.worker, a.model, a.outcome, a.startedAt, a.endedAt);
    }
    if (!keepSteps) {
      for (const s of steps) {
        this.#insertStep.run(n, s.seq, s.time, s.type, s.tool, s.kind, s.target, s.status, s.text);
      }
    }
    if (patch !== null && !keepPatch) this.#insertDiff.run(n, patch);
  }
}

/**
 * Brings a run's row and its kept record up to what was handed over of it (`handovers`, read
 * inside the transaction, so a concurrent indexing of the run cannot leave an older figure
 * behind). False when the history has no row for the run yet: its indexing reads the handovers.
 */
export function writeReturned(db: DatabaseSync, id: string, handovers: () => Handover[]): boolean {
  db.exec("BEGIN IMMEDIATE");
  try {
    const n = rowidOf(id);
    const doc = db.prepare("SELECT task, answer, record FROM run_docs WHERE n = ?").get(n) as
      | { task: string; answer: string | null; record: string }
      | undefined;
    const record = doc === undefined ? null : recordOfDoc(doc) as RunRecord | null;
    const folded = record === null ? null : withHandovers(record, handovers());
    if (folded !== null && folded !== record) {
      db.prepare("UPDATE runs SET returned_tokens = ? WHERE n = ?")
        .run(folded.receipt?.returnedTokens ?? null, n);
      db.prepare("UPDATE run_docs SET record = ? WHERE n = ?").run(docRow(folded, []).record, n);
    }
    db.exec("COMMIT");
    return doc !== undefined;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}
