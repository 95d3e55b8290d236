/**
 * Recorded claude streams (testdata/*.jsonl, each with a .txt note saying how it was made) and
 * the events the claude parser makes of them.
 */
import { fileURLToPath } from "node:url";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { claudeBackend } from "../../../src/workers/claude/mod.ts";
import type { ParseState } from "../../../src/workers/types.ts";
import { readAt } from "../../support/line_time.ts";

/** The lines of a recorded stream. */
export async function recordedLines(name: string): Promise<string[]> {
  const url = new URL(`./testdata/${name}.jsonl`, import.meta.url);
  const text = await Deno.readTextFile(fileURLToPath(url));
  return text.split("\n").filter((line) => line.trim() !== "");
}

/** The `retry_delay_ms` of a recording's `api_retry` lines. */
export async function retryDelays(name: string): Promise<number[]> {
  return (await recordedLines(name))
    .map((line) => JSON.parse(line))
    .filter((line) => line.subtype === "api_retry")
    .map((line) => line.retry_delay_ms);
}

/** Parses lines with a fresh state; each event is stamped with its line number. */
export function parseLines(lines: string[]): { events: WorkerEvent[]; state: ParseState } {
  const state = claudeBackend.newState();
  const events = lines.flatMap((line, i) => claudeBackend.parse(line, state, readAt(i)));
  return { events, state };
}

/** The events of a recorded stream. */
export async function recordedEvents(name: string): Promise<WorkerEvent[]> {
  return parseLines(await recordedLines(name)).events;
}

/** The events of one type. */
export function ofType<K extends WorkerEvent["type"]>(
  events: readonly WorkerEvent[],
  type: K,
): Extract<WorkerEvent, { type: K }>[] {
  return events.filter((e): e is Extract<WorkerEvent, { type: K }> => e.type === type);
}
