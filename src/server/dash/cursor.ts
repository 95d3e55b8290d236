/**
 * The stream's event ids (pure). Each id is a cursor that says everything a reconnecting page
 * has seen: when it was sent, and per run it follows the byte offset of the run's events file
 * after the last event it got (`ENDED` once the run's final event came; such a run stays in
 * the cursor for `ENDED_KEEP_MS` after its end, so a resume does not announce it again).
 *
 * Format: `1.<time base 36>.<run>=<offset base 36>,<run>=<offset base 36>...` (`<run>=e` for an
 * ended run). Ids hold no CR, LF or NUL, as SSE requires.
 */
import { isRunId } from "../../engine/present.ts";

/** A run whose final event was delivered. */
export const ENDED = -1;

/** How long an ended run stays in the cursor after its end. */
export const ENDED_KEEP_MS = 60_000;

/** What a cursor says. */
export interface Cursor {
  /** When the message carrying it was made (ms since the epoch). */
  time: number;
  /** Per run: the offset after the last event delivered, or `ENDED`. */
  runs: Map<string, number>;
}

/** Encodes a cursor. */
export function encodeCursor(cursor: Cursor): string {
  const runs = [...cursor.runs].map(([id, off]) =>
    `${id}=${off === ENDED ? "e" : off.toString(36)}`
  );
  return `1.${cursor.time.toString(36)}.${runs.join(",")}`;
}

/** Decodes a cursor; null when `text` is not one (the page then starts afresh). */
export function decodeCursor(text: string | undefined | null): Cursor | null {
  if (!text || text.length > 64_000) return null;
  const m = /^1\.([0-9a-z]{1,12})\.(.*)$/.exec(text);
  if (m === null) return null;
  const time = parseInt(m[1]!, 36);
  if (!Number.isSafeInteger(time)) return null;
  const runs = new Map<string, number>();
  if (m[2] !== "") {
    for (const part of m[2]!.split(",")) {
      const eq = part.indexOf("=");
      const id = part.slice(0, eq);
      const off = part.slice(eq + 1);
      if (eq < 0 || !isRunId(id) || !/^(e|[0-9a-z]{1,12})$/.test(off)) return null;
      const value = off === "e" ? ENDED : parseInt(off, 36);
      if (!Number.isSafeInteger(value)) return null;
      runs.set(id, value);
    }
  }
  return { time, runs };
}
