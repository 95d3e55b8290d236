/**
 * The implementer's status (pure): the last `STATUS: DONE|DONE_WITH_CONCERNS|NEEDS_CONTEXT|BLOCKED`
 * line of its answer (Markdown emphasis and a heading mark allowed), else `unknown`, and the items
 * of its `OPEN ISSUES` section (bullets up to the next heading or section label).
 */

/** The statuses an implementer reports. */
export const IMPLEMENTER_STATUSES = [
  "DONE",
  "DONE_WITH_CONCERNS",
  "NEEDS_CONTEXT",
  "BLOCKED",
  "unknown",
] as const;
/** An implementer status (`unknown` when the answer has no status line). */
export type ImplementerStatus = typeof IMPLEMENTER_STATUSES[number];

/** What the implementer said about its work. */
export interface ImplementerReport {
  status: ImplementerStatus;
  openIssues: string[];
}

const STATUS_LINE =
  /^[\s>#*_`-]*STATUS[*_`]*\s*[:=]?\s*[*_`]*\s*(DONE_WITH_CONCERNS|DONE|NEEDS_CONTEXT|BLOCKED)[*_`]*\s*(?:[.!]|\s[-—–(:].*)?\s*$/i;
const OPEN_ISSUES = /^[\s#*_`]*OPEN[\s_-]+ISSUES[*_`]*\s*:?\s*[*_`]*\s*(.*)$/i;
const LABEL = /^[\s#*_`]*[A-Z][A-Z _-]{2,}[*_`]*\s*:/;
const BULLET = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;
const NONE = /^(none|n\/a|nothing|-|—)\.?$/i;

/** Parses an implementer's answer into its status and open issues. */
export function parseImplementerReport(answer: string): ImplementerReport {
  const lines = answer.replace(/\r\n?/g, "\n").split("\n");
  let status: ImplementerStatus = "unknown";
  for (const line of lines) {
    const m = STATUS_LINE.exec(line);
    if (m) status = m[1]!.toUpperCase() as ImplementerStatus;
  }
  return { status, openIssues: openIssuesOf(lines) };
}

function openIssuesOf(lines: readonly string[]): string[] {
  const start = lines.findIndex((l) => OPEN_ISSUES.test(l));
  if (start < 0) return [];
  const issues: string[] = [];
  const inline = OPEN_ISSUES.exec(lines[start]!)?.[1]?.trim() ?? "";
  if (inline !== "" && !NONE.test(inline)) issues.push(inline);
  let gap = false;
  for (const line of lines.slice(start + 1)) {
    // A heading, another label or the end of a code fence the model kept ends the list.
    if (/^\s*(#|```|~~~)/.test(line) || STATUS_LINE.test(line) || LABEL.test(line)) break;
    const bullet = BULLET.exec(line);
    if (bullet) {
      const item = bullet[1]!.trim();
      if (item !== "" && !NONE.test(item)) issues.push(item);
      gap = false;
    } else if (line.trim() === "") {
      gap = true;
    } else if (gap) {
      // Text after a blank line is not part of the list any more.
      break;
    } else if (issues.length > 0) {
      issues[issues.length - 1] += ` ${line.trim()}`;
    }
  }
  return issues;
}
