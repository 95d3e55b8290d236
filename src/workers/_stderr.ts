/**
 * The line of a CLI's stderr that says what failed, for a failure message. CLIs lead with
 * warnings that say nothing about the failure (codex's "WARNING: proceeding, even though we could
 * not create PATH aliases", gemini's "Warning: 256-color support not detected", its `[STARTUP]`
 * metrics notes), and follow an error with a stack: the first line that reads as an error wins,
 * then the first line that is not noise.
 */

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** Lines that never say what failed: warnings, start-up metrics, stack frames, bare braces. */
const NOISE =
  /^(?:warn(?:ing)?\b|\[STARTUP\]|\(node:\d+\)|at\s+\S|[{}[\]()]+,?$|Full report available)/i;

/** Words of a line that says what failed. */
const FAILURE =
  /\b(?:error|errors|failed|fails|failure|invalid|denied|refused|not (?:inside|found|allowed|supported|valid|set|trusted)|must|cannot|can't|unable|missing|no such|unknown|unauthori[sz]ed|forbidden|exceeded|exhausted|quota)\b/i;

const MAX_CHARS = 300;

/** The stderr line that best says what failed, shortened; "" when stderr has none. */
export function failureLine(stderr: string): string {
  const lines = stderr.replace(ANSI, "").split("\n").map((line) => line.trim())
    .filter((line) => line !== "");
  const telling = lines.filter((line) => !NOISE.test(line));
  const at = telling.findIndex((l) => FAILURE.test(l));
  let line = telling[Math.max(at, 0)] ?? lines[0] ?? "";
  // "Error loading config.toml:" says what; the next line says why.
  const next = telling[Math.max(at, 0) + 1];
  if (line.endsWith(":") && next !== undefined) line = `${line} ${next}`;
  return line.length <= MAX_CHARS ? line : `${line.slice(0, MAX_CHARS - 1)}…`;
}
