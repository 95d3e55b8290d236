/**
 * Reads a backend's recorded stream (`testdata/NAME.jsonl`) and its note (`NAME.txt`: the command,
 * the exit code and the stderr the CLI printed) for its parser and classifier tests.
 */
import { join } from "node:path";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import type { Backend, ProcessEnd } from "../../../src/workers/types.ts";
import { endFromNote } from "./note.ts";
import { readAt } from "../../support/line_time.ts";

/** A recorded attempt: its stdout lines, parsed events and how the process ended. */
export interface Recorded {
  lines: string[];
  events: WorkerEvent[];
  end: ProcessEnd;
}

/** The time every parsed event of a recording gets. */
export const TIME = 1_700_000_000_000;

/** A reader of `backend`'s recordings in `testdata`: each parsed with a fresh state. */
export function recordings(
  backend: Pick<Backend, "newState" | "parse">,
  testdata: string,
): (name: string) => Promise<Recorded> {
  return async (name) => {
    const text = await Deno.readTextFile(join(testdata, `${name}.jsonl`));
    const note = await Deno.readTextFile(join(testdata, `${name}.txt`));
    const lines = text.split("\n").filter((line) => line.trim() !== "");
    const state = backend.newState();
    const events = lines.flatMap((line) => backend.parse(line, state, readAt(TIME)));
    return { lines, events, end: endFromNote(note, name).end };
  };
}
