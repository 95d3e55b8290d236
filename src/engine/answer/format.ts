/**
 * The sections of the answer format workers are asked for (prompts/answer.md): Summary,
 * Findings, Files changed, Verified, Open issues. Pure. Headings are recognised as a label line
 * (`Summary:`), a Markdown heading (`## Summary`) or bold (`**Summary**`), in any case; an
 * answer that follows none of it comes back with `formatted: false` and its whole text as the
 * summary, so nothing a worker said is lost.
 */

/** One finding: its text and the `path:line` it cites first, when it cites one. */
export interface Finding {
  text: string;
  ref?: string;
}

/** An answer split into the sections of the format. */
export interface ParsedAnswer {
  /** True when at least one section heading of the format was found. */
  formatted: boolean;
  /** The Summary section; for an unformatted answer, the whole text. */
  summary: string;
  findings: Finding[];
  filesChanged: string[];
  verified: string[];
  openIssues: string[];
  /** Text before the first heading (kept, not dropped). */
  preamble?: string;
}

type Section = "summary" | "findings" | "filesChanged" | "verified" | "openIssues";

const HEADINGS: ReadonlyArray<[RegExp, Section]> = [
  [/^(summary|answer|tl;?dr)$/, "summary"],
  [/^(findings?|details|references)$/, "findings"],
  [/^(files? changed|changed files|changes)$/, "filesChanged"],
  [/^(verified|verification|how (it was|i) verified( it)?|checks?)$/, "verified"],
  [/^(open issues|open questions|open|gaps|assumptions|caveats)$/, "openIssues"],
];

/** A heading line: `Summary:`, `## Summary`, `**Summary:**`, with text after the colon kept. */
const HEADING_LINE =
  /^\s{0,3}(?:#{1,6}\s*)?(?:\*\*|__)?([A-Za-z][A-Za-z ;'/]{1,40}?)(?:\*\*|__)?\s*(?::\s*(?:\*\*|__)?|$)(.*)$/;

const BULLET = /^\s*(?:[-*+•]|\d{1,3}[.)])\s+(.*)$/;

/** The first reference a finding cites (`path:line`, ranges, `path#L10`). */
const FIRST_REF =
  /(?:[\w@+~.-]+\/)*[\w@+~-][\w@+~.-]*\.[\w]+(?::\d+(?:[-–]\d+)?|#L\d+(?:-L?\d+)?)|(?:[\w@+~.-]+\/)+[\w@+~-][\w@+~.-]*(?::\d+(?:[-–]\d+)?|#L\d+(?:-L?\d+)?)/;

function sectionOf(heading: string): Section | null {
  const name = heading.trim().toLowerCase().replace(/\s+/g, " ");
  for (const [pattern, section] of HEADINGS) if (pattern.test(name)) return section;
  return null;
}

function isNone(item: string): boolean {
  return /^(none|nothing|n\/a|-)\.?$/i.test(item.trim());
}

/** Bullet items of a section's lines (continuation lines join the item above). */
function itemsOf(lines: string[]): string[] {
  const items: string[] = [];
  let open = false;
  for (const line of lines) {
    if (line.trim() === "") {
      open = false;
      continue;
    }
    const bullet = BULLET.exec(line);
    if (bullet) {
      items.push(bullet[1]!.trim());
      open = true;
    } else if (open && /^\s/.test(line)) {
      items[items.length - 1] += ` ${line.trim()}`;
    } else {
      items.push(line.trim());
      open = true;
    }
  }
  return items.filter((item) => item !== "" && !isNone(item));
}

/** Splits an answer into the sections of the format (pure). */
export function parseAnswer(text: string): ParsedAnswer {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const bodies = new Map<Section, string[]>();
  const preamble: string[] = [];
  let current: Section | null = null;
  let inFence = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = inFence ? null : HEADING_LINE.exec(line);
    const section = heading ? sectionOf(heading[1]!) : null;
    // The whole label must be a heading name: a sentence that starts with "Changes" is not one.
    if (section !== null) {
      current = section;
      const rest = heading![2]!.replace(/^(\*\*|__)/, "").trim();
      const body = bodies.get(section) ?? [];
      if (rest !== "") body.push(rest);
      bodies.set(section, body);
      continue;
    }
    if (current === null) preamble.push(line);
    else bodies.get(current)!.push(line);
  }
  if (bodies.size === 0) {
    return {
      formatted: false,
      summary: text.trim(),
      findings: [],
      filesChanged: [],
      verified: [],
      openIssues: [],
    };
  }
  const items = (section: Section) => itemsOf(bodies.get(section) ?? []);
  const findings = items("findings").map((item): Finding => {
    const ref = FIRST_REF.exec(item)?.[0];
    return ref === undefined ? { text: item } : { text: item, ref };
  });
  const before = preamble.join("\n").trim();
  return {
    formatted: true,
    summary: (bodies.get("summary") ?? []).join("\n").trim(),
    findings,
    filesChanged: items("filesChanged"),
    verified: items("verified"),
    openIssues: items("openIssues"),
    ...(before === "" ? {} : { preamble: before }),
  };
}

/** The line that stands for an answer in one-line views: its summary, else its text. */
export function answerSummary(text: string): string {
  const parsed = parseAnswer(text);
  return parsed.formatted && parsed.summary !== "" ? parsed.summary : text;
}
