/**
 * What a run handed its caller, measured: each result that carried the run (an MCP tool's result,
 * a CLI command's output) is one JSON line of the run folder's `returned.jsonl` with its size in
 * bytes, appended (never rewritten, so two processes handing the same run over at once both
 * count). A finished run's receipt says the sum (`receipt.returned`), and its returned tokens and
 * compression are derived from it: the figures count what was handed over, not an estimate.
 * Reading a record folds the file in (`withHandovers`); a line cut short (a process killed while
 * writing it) is not counted.
 */
import type { StatePaths } from "./paths.ts";
import type { Receipt, RunRecord, Tokens } from "./record.ts";

/** About this many bytes make a token (the receipt's returned tokens are bytes over this). */
export const BYTES_PER_TOKEN = 4;

/** One result that handed a run over. */
export interface Handover {
  /** When, ms since the epoch. */
  at: number;
  /** Which face handed it over. */
  via: "mcp" | "cli";
  /** The tool or command (`pitroom_run`, `wait`). */
  what: string;
  /** This run's share of the result, UTF-8 bytes. */
  bytes: number;
}

/**
 * The size of a run's `returned.jsonl` (0 when there is none): an indexer compares it before and
 * after its write to catch a handover appended meanwhile (store/history/mod.ts).
 */
export function handoversSize(paths: StatePaths, id: string): number {
  try {
    return Deno.statSync(paths.run(id).returned).size;
  } catch {
    return 0;
  }
}

/** Appends one handover to the run's `returned.jsonl`. */
export async function appendHandover(
  paths: StatePaths,
  id: string,
  handover: Handover,
): Promise<void> {
  await Deno.writeTextFile(paths.run(id).returned, JSON.stringify(handover) + "\n", {
    append: true,
    mode: 0o600,
  });
}

function isHandover(value: unknown): value is Handover {
  if (typeof value !== "object" || value === null) return false;
  const h = value as Record<string, unknown>;
  return typeof h.at === "number" && (h.via === "mcp" || h.via === "cli") &&
    typeof h.what === "string" && Number.isInteger(h.bytes) && (h.bytes as number) >= 0;
}

/** The handovers in a `returned.jsonl` text (lines that are not one are left out). */
export function parseHandovers(text: string): Handover[] {
  const out: Handover[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isHandover(value)) out.push(value);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
  }
  return out;
}

/**
 * A file that cannot be read as text (none, a folder in its place, no permission): what was
 * handed over is then not known, which is no reason to fail the read of the run.
 */
function unreadable(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory ||
    error instanceof Deno.errors.IsADirectory || error instanceof Deno.errors.PermissionDenied ||
    error instanceof Deno.errors.InvalidData;
}

/** A run's handovers (none when it has no file). */
export async function readHandovers(paths: StatePaths, id: string): Promise<Handover[]> {
  try {
    return parseHandovers(await Deno.readTextFile(paths.run(id).returned));
  } catch (error) {
    if (unreadable(error)) return [];
    throw error;
  }
}

/** `readHandovers`, synchronously (inside a history transaction, and a bulk import). */
export function readHandoversSync(paths: StatePaths, id: string): Handover[] {
  try {
    return parseHandovers(Deno.readTextFileSync(paths.run(id).returned));
  } catch (error) {
    if (unreadable(error)) return [];
    throw error;
  }
}

/** Tokens for a number of bytes handed over (at least one when any were). */
export function tokensForBytes(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN);
}

/** Worker tokens (input, cached, output, reasoning) per returned token; null when either is 0. */
export function compressionOf(tokens: Tokens, returnedTokens: number): number | null {
  const burned = tokens.input + tokens.cached + tokens.output + tokens.reasoning;
  return returnedTokens > 0 && burned > 0 ? Math.round((burned / returnedTokens) * 10) / 10 : null;
}

/** A receipt saying `bytes` were handed over in `handovers` results. */
export function receiptReturned(receipt: Receipt, bytes: number, handovers: number): Receipt {
  const returnedTokens = tokensForBytes(bytes);
  return {
    ...receipt,
    returnedTokens,
    compression: compressionOf(receipt.tokens, returnedTokens),
    returned: { bytes, handovers },
  };
}

/**
 * The record with its receipt saying what the handovers handed over (the same record when it has
 * no receipt or no handover).
 */
export function withHandovers(record: RunRecord, handovers: readonly Handover[]): RunRecord {
  if (record.receipt === undefined || handovers.length === 0) return record;
  const bytes = handovers.reduce((sum, h) => sum + h.bytes, 0);
  return { ...record, receipt: receiptReturned(record.receipt, bytes, handovers.length) };
}
