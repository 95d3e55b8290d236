/**
 * Reads a recorded Qwen Code stream (`testdata/NAME.jsonl`) and its note (`NAME.txt`: the command,
 * the exit code and the stderr the CLI printed) for the parser and classifier tests.
 */
import { join } from "node:path";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { qwenBackend } from "../../../src/workers/qwen/mod.ts";
import type { ProcessEnd } from "../../../src/workers/types.ts";
import { endFromNote } from "../_fixtures/note.ts";
import { readAt } from "../../support/line_time.ts";

const TESTDATA = join(import.meta.dirname ?? ".", "testdata");

/** A recorded attempt: its stdout lines, parsed events and how the process ended. */
export interface Recorded {
  lines: string[];
  events: WorkerEvent[];
  end: ProcessEnd;
}

/** The time every parsed event of a recording gets. */
export const TIME = 1_700_000_000_000;

/** Loads and parses recording `name` with a fresh parse state. */
export async function recorded(name: string): Promise<Recorded> {
  const text = await Deno.readTextFile(join(TESTDATA, `${name}.jsonl`));
  const note = await Deno.readTextFile(join(TESTDATA, `${name}.txt`));
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const state = qwenBackend.newState();
  const events = lines.flatMap((line) => qwenBackend.parse(line, state, readAt(TIME)));
  return { lines, events, end: endFromNote(note, name).end };
}
