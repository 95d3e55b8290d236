/**
 * Reads the note `deno task fixtures:record` writes beside a recorded stream (`NAME.txt`): the
 * `Exit: code N signal S` line and the stderr section, as the process end a classifier gets.
 */
import type { ProcessEnd } from "../../../src/workers/types.ts";

/** How a recorded attempt ended, and its stderr lines (without the note's indentation). */
export function endFromNote(note: string, name: string): { end: ProcessEnd; stderr: string[] } {
  const exit = /^Exit: code (\d+|null) signal (\S+)$/m.exec(note);
  if (exit === null) throw new Error(`${name}.txt has no "Exit:" line`);
  const stderr = (note.split(/^stderr[^\n]*\n/m)[1] ?? "")
    .split("\n")
    .map((line) => line.replace(/^ {2}/, ""))
    .filter((line) => line !== "");
  return {
    stderr,
    end: {
      code: exit[1] === "null" ? null : Number(exit[1]),
      signal: exit[2] === "null" ? null : exit[2] ?? null,
      timedOut: false,
      stopped: false,
      stderr: stderr.join("\n"),
    },
  };
}
