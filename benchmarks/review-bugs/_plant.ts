/**
 * Planting one small bug (pure): a case names a file, the exact text to change and what it
 * becomes (an inverted check, a swapped `&&`/`||`, a flipped return). The text must occur once, so
 * the planted line is known; a `clean` case makes a change that alters nothing (a false-alarm
 * probe).
 */

/** The kinds of change a case plants. */
export const KINDS = ["inverted-check", "swapped-and-or", "flipped-return", "clean"] as const;
/** A kind of planted change. */
export type Kind = typeof KINDS[number];

/** One benchmark case. */
export interface Case {
  name: string;
  kind: Kind;
  /** The file, relative to the repository root. */
  file: string;
  /** The exact text to replace (it must occur once in the file). */
  find: string;
  replace: string;
  /** The identifier the change touches (a finding naming it counts as a find). */
  identifier?: string;
}

/** What planting did. */
export interface Planted {
  text: string;
  /** The 1-based line of the change. */
  line: number;
}

/** Plants a case's change into a file's text; throws when `find` does not occur exactly once. */
export function plant(text: string, c: Case): Planted {
  const at = text.indexOf(c.find);
  if (at < 0) throw new Error(`case "${c.name}": "${c.find}" is not in ${c.file}`);
  if (text.indexOf(c.find, at + 1) >= 0) {
    throw new Error(`case "${c.name}": "${c.find}" occurs more than once in ${c.file}`);
  }
  const line = text.slice(0, at).split("\n").length;
  return { text: text.slice(0, at) + c.replace + text.slice(at + c.find.length), line };
}
