/**
 * Reads a recorded opencode stream (`testdata/NAME.jsonl`) and its note (`NAME.txt`: version,
 * command, exit and stderr) and parses both with the backend, for the parser and classifier
 * tests. Snapshots of the parsed events live in `testdata/NAME.events.json`, with the token
 * counts that follow request sizes masked (a re-record moves them; the parse tests check each
 * against its `step_finish` line); run the tests with `UPDATE_SNAPSHOTS=1` to rewrite them after a
 * deliberate change. `deno task fixtures:record opencode` re-records the streams.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { opencodeBackend } from "../../../src/workers/opencode/mod.ts";
import type { ProcessEnd } from "../../../src/workers/types.ts";
import { endFromNote } from "../_fixtures/note.ts";
import { readAt } from "../../support/line_time.ts";

/** The folder of the recordings. */
export const TESTDATA = join(import.meta.dirname ?? ".", "testdata");

/** The time every parsed event of a recording gets. */
export const TIME = 1_700_000_000_000;

/** A recorded attempt: its stdout lines, parsed events (stdout then stderr) and its end. */
export interface Recorded {
  lines: string[];
  events: WorkerEvent[];
  end: ProcessEnd;
}

/** The stdout lines and the stderr lines of recording `name`, unparsed. */
export async function recordedParts(name: string): Promise<{ lines: string[]; stderr: string[] }> {
  const text = await Deno.readTextFile(join(TESTDATA, `${name}.jsonl`));
  const note = await Deno.readTextFile(join(TESTDATA, `${name}.txt`));
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return { lines, stderr: endFromNote(note, name).stderr };
}

/** Loads and parses recording `name` with a fresh parse state. */
export async function recorded(name: string): Promise<Recorded> {
  const text = await Deno.readTextFile(join(TESTDATA, `${name}.jsonl`));
  const note = await Deno.readTextFile(join(TESTDATA, `${name}.txt`));
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const { end, stderr } = endFromNote(note, name);
  const state = opencodeBackend.newState();
  const events = [
    ...lines.flatMap((line) => opencodeBackend.parse(line, state, readAt(TIME))),
    ...stderr.flatMap((line) => opencodeBackend.parseStderr(line, state, readAt(TIME))),
  ];
  return { lines, events, end };
}

/** `events` with the counts of `worker.tokens` that follow request sizes masked, for snapshots. */
export function sizeCountsMasked(events: readonly WorkerEvent[]): unknown[] {
  return events.map((e) => e.type === "worker.tokens" ? { ...e, input: "N", output: "N" } : e);
}

/** Compares `value` with the stored snapshot `name`, or rewrites it under `UPDATE_SNAPSHOTS`. */
export async function assertSnapshot(name: string, value: unknown): Promise<void> {
  const file = join(TESTDATA, `${name}.events.json`);
  const text = JSON.stringify(value, null, 2) + "\n";
  if (Deno.env.get("UPDATE_SNAPSHOTS") === "1") {
    await Deno.writeTextFile(file, text);
    return;
  }
  assert.deepEqual(JSON.parse(text), JSON.parse(await Deno.readTextFile(file)), `snapshot ${file}`);
}
