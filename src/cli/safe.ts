/**
 * What a worker wrote, made safe to print: control characters (ESC and so every terminal
 * sequence, OSC titles, carriage returns, newlines inside a name, C1 controls, bidi overrides)
 * become visible escapes, so nothing a worker writes can drive the terminal or split a line.
 * Used at the rendering edge of every human output; `--json` prints the exact text.
 */
import { oneLine } from "../sys/text.ts";

// C0 and DEL, C1, and the bidi embeddings/overrides/isolates that reorder what is shown.
// deno-lint-ignore no-control-regex -- finding control characters is the point
const CONTROL = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
// deno-lint-ignore no-control-regex -- as above
const CONTROL_BUT_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\x1b": "\\e", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeOne(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const code = ch.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
}

/** One field (a file name, a target, an id): every control character escaped, newlines too. */
export function safe(text: string): string {
  return text.replace(CONTROL, escapeOne);
}

/** Text of several lines (an answer, a command's output): lines and tabs kept, the rest escaped. */
export function safeText(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(CONTROL_BUT_LINES, escapeOne);
}

/** A field shortened to one line of at most about `max` characters, then escaped. */
export function safeLine(text: string, max: number): string {
  return safe(oneLine(text, max));
}

/** At most `max` paths (made safe), one an indented line, then how many more. */
export function shortList(paths: readonly string[], max = 20): string {
  const shown = paths.slice(0, max).map((path) => `  ${safe(path)}\n`).join("");
  return paths.length > max ? `${shown}  ... and ${paths.length - max} more\n` : shown;
}
