/**
 * The size budget of MCP tool results (issue 30): a result that hands runs over is at most 1.5
 * times what its runs hold for the agent (the answer, the changed-file lines, flagged and disputed
 * claims, a problem) plus 400 bytes a run; a listing 400 bytes a run. For a client that gives its model the
 * structured content (Claude Code, Codex) the whole result (`JSON.stringify`, text and structured
 * content) is held to it; for any other client each part (the text, the structured content's
 * JSON), as its model reads one of them. The content is measured on the run's record, not on the
 * result, so a result cannot pass by leaving the answer out.
 */
import assert from "node:assert/strict";
import type { RunRecord } from "../../../src/store/record.ts";

/** Bytes of result a byte of content may cost. */
export const PER_CONTENT_BYTE = 1.5;
/** Bytes of result a run may cost besides its content. */
export const PER_RUN_BYTES = 400;

const encoder = new TextEncoder();

/** UTF-8 bytes of a text. */
export function bytes(text: string): number {
  return encoder.encode(text).length;
}

/** Options of `contentOf`. */
export interface ContentOptions {
  /** Count the answer (a result that repeats it). @default true */
  answer?: boolean;
}

/**
 * What a run holds for an agent, in bytes: its answer, a line per changed file (its path and 16
 * for the letter and counts), the claims the evidence check flagged, the claims an audit
 * disputed and the corrected answer, a problem.
 */
export function contentOf(record: RunRecord, options: ContentOptions = {}): number {
  let n = options.answer === false ? 0 : bytes(record.answer ?? "");
  for (const f of record.changes?.files ?? []) n += bytes(f.path) + 16;
  for (const flag of record.evidence ?? []) n += bytes(flag.message);
  for (const claim of record.audit?.disputed ?? []) n += bytes(claim);
  n += bytes(record.audit?.fix?.answer ?? "");
  if (record.state !== "done") n += bytes(record.message ?? "");
  return n;
}

/** The budget of a result handing `records` over (each with its options). */
export function runsBudget(records: readonly (RunRecord | [RunRecord, ContentOptions])[]): number {
  return records.reduce((sum, r) => {
    const [record, options] = Array.isArray(r) ? r : [r, {}];
    return sum + Math.ceil(PER_CONTENT_BYTE * contentOf(record, options)) + PER_RUN_BYTES;
  }, 0);
}

/** A result's sizes: whole, its text and its structured content's JSON. */
export function sizesOf(result: unknown): { whole: number; text: number; structured: number } {
  const r = result as { content?: { type: string; text?: string }[]; structuredContent?: unknown };
  const text = (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text ?? "")
    .join("\n");
  return {
    whole: bytes(JSON.stringify(result)),
    text: bytes(text),
    structured: r.structuredContent === undefined ? 0 : bytes(JSON.stringify(r.structuredContent)),
  };
}

/**
 * Asserts a result is within `budget` for a client that gives its model the structured content
 * (`readsStructured`: the whole result) or any other (each part).
 */
export function assertWithin(
  result: unknown,
  budget: number,
  readsStructured: boolean,
  what: string,
): void {
  const size = sizesOf(result);
  const said = `${what}: ${JSON.stringify(size)} over a budget of ${budget}: ${
    JSON.stringify(result).slice(0, 3000)
  }`;
  if (readsStructured) assert.ok(size.whole <= budget, said);
  else assert.ok(size.text <= budget && size.structured <= budget, said);
}
