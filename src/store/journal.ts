/**
 * A run's journal (`runs/<id>/journal.jsonl`): every write Pitroom makes into the user's tree for
 * that run (an apply, a revert, a read run's undo) as an operation with its whole plan, each path's
 * entry before and after. An operation's `begin` line is on disk (synced) before its first file is
 * written and its `end` line after its last, so an operation without an end was cut short: the
 * plan and the tree tell exactly which files it wrote, and it can be finished or taken back. Lines
 * are only appended; a line torn by a kill during its own append is skipped when read (nothing
 * was written after it). What a run's state is (applied, reverted, cut short) is read from here
 * and the tree; the run record only mirrors it for display.
 */

/** A file as a tree records it (git mode and blob id). */
export interface JournalEntry {
  mode: string;
  blob: string;
}

/** The plan of an operation: each path's entry before and after, and the folders it touches. */
export interface JournalPlan {
  writes: { path: string; from: JournalEntry | null; to: JournalEntry | null }[];
  /** Folders removed once its removals emptied them. */
  prune: string[];
  /** Folders it made. */
  made: string[];
}

/** What an operation did to the user's tree. */
export type JournalAction = "apply" | "revert";

/** One operation of a journal. */
export interface JournalOp {
  /** Its number in the journal, from 1. */
  n: number;
  action: JournalAction;
  /**
   * Whose changes a revert of a write or read run takes out: the worker's files (`worker`), the
   * files changed while it worked that its tools did not change (`others`), or both (`all`).
   */
  scope?: "worker" | "others" | "all";
  /** When it began (ms since the epoch). */
  at: number;
  plan: JournalPlan;
  /** An apply's files merged into the user's own changes. */
  merged?: string[];
  /** Files it leaves as they are, with why (a revert that cannot separate the worker's edits). */
  left?: { path: string; why: string }[];
  /** When it ended; absent while under way or cut short. */
  ended?: number;
  /** True when it was given up before it wrote anything (something changed under its plan). */
  voided?: boolean;
}

type Line =
  | { op: "begin" } & Omit<JournalOp, "ended" | "voided">
  | { op: "end"; n: number; at: number }
  | { op: "void"; n: number; at: number };

/** Reads a journal's operations in order; none when there is no journal. */
export async function readJournal(path: string): Promise<JournalOp[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const ops = new Map<number, JournalOp>();
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      // Torn by a kill during its own append: nothing was written after it.
      continue;
    }
    if (line.op === "begin") {
      const { op: _op, ...rest } = line;
      ops.set(rest.n, rest);
    } else if (line.op === "end" || line.op === "void") {
      const op = ops.get(line.n);
      if (op === undefined) continue;
      op.ended = line.at;
      if (line.op === "void") op.voided = true;
    }
  }
  return [...ops.values()].sort((a, b) => a.n - b.n);
}

/** Appends one line and syncs it to disk (a torn last line gets its own line first). */
async function append(path: string, line: Line): Promise<void> {
  const file = await Deno.open(path, { read: true, append: true, create: true, mode: 0o600 });
  try {
    const size = (await file.stat()).size;
    let lead = "";
    if (size > 0) {
      const last = new Uint8Array(1);
      await file.seek(size - 1, Deno.SeekMode.Start);
      await file.read(last);
      if (last[0] !== 0x0a) lead = "\n";
    }
    const bytes = new TextEncoder().encode(`${lead}${JSON.stringify(line)}\n`);
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.syncData();
  } finally {
    file.close();
  }
}

/** The number the next operation gets. */
export function nextOpNumber(ops: readonly JournalOp[]): number {
  return (ops.at(-1)?.n ?? 0) + 1;
}

/** Records that `op` begins (synced before it writes anything). */
export async function beginOp(
  path: string,
  op: Omit<JournalOp, "ended" | "voided">,
): Promise<void> {
  await append(path, { op: "begin", ...op });
}

/** Records that operation `n` ended at `at`: every file of its plan holds what the plan wants. */
export async function endOp(path: string, op: { n: number; at: number }): Promise<void> {
  await append(path, { op: "end", ...op });
}

/** Records that operation `n` was given up at `at`, before it wrote anything. */
export async function voidOp(path: string, op: { n: number; at: number }): Promise<void> {
  await append(path, { op: "void", ...op });
}

/** The operations that count (those given up aside). */
export function liveOps(ops: readonly JournalOp[]): JournalOp[] {
  return ops.filter((op) => !op.voided);
}
