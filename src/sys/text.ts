/**
 * Text helpers (pure) shared by every layer: what a worker's tool call aimed at, a message or a
 * task shown in a table, a label on the savings card.
 */

/** Options of `oneLine`. */
export interface OneLineOptions {
  /**
   * Keep the end of a long text instead of its start (paths: the file name matters most).
   * @default false
   */
  keepEnd?: boolean;
}

/**
 * The text on one line (runs of whitespace become one space) of at most `max` characters; a
 * longer one is cut with `…` at the end (or, with `keepEnd`, at the start).
 */
export function oneLine(text: string, max: number, options: OneLineOptions = {}): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  return options.keepEnd ? `…${flat.slice(-(max - 1))}` : `${flat.slice(0, max - 1)}…`;
}
