/**
 * A reviewer's verdict (pure): the lines `SPEC: PASS|FAIL` and `QUALITY: APPROVED|NEEDS-FIXES`,
 * findings by severity (Critical, Important, Minor) with the file and line they name, and the
 * CANNOT VERIFY items. A finding is a bullet that starts with its severity (`- [Important]
 * src/a.ts:12 — ...`, `- **Minor:** ...`) or a bullet under a severity heading or label. A verdict
 * missing either line is incomplete: a failed review, never a pass.
 */

/** Finding severities, most severe first. */
export const SEVERITIES = ["Critical", "Important", "Minor"] as const;
/** A finding's severity. */
export type Severity = typeof SEVERITIES[number];

/** One finding of a review. */
export interface Finding {
  severity: Severity;
  /** The file it names (the first `path:line` or `path#Ln` of its text). */
  file?: string;
  line?: number;
  text: string;
}

/** A parsed review. */
export interface Verdict {
  spec?: "PASS" | "FAIL";
  quality?: "APPROVED" | "NEEDS-FIXES";
  findings: Finding[];
  cannotVerify: string[];
  /** True when both verdict lines were found. */
  complete: boolean;
}

const MARK = "[\\s>#*_`|-]*";
const SPEC = new RegExp(`^${MARK}SPEC[*_\`]*\\s*[:=]\\s*[*_\`]*\\s*(PASS|FAIL)\\b(?!\\s*\\|)`, "i");
const QUALITY = new RegExp(
  `^${MARK}QUALITY[*_\`]*\\s*[:=]\\s*[*_\`]*\\s*(APPROVED|NEEDS[-_ ]FIXES)\\b(?!\\s*\\|)`,
  "i",
);
const BULLET = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;
const SEVERITY_START =
  /^\s*(?:\[(critical|important|minor)\]|\(?(?:\*\*|__)(critical|important|minor):?(?:\*\*|__)\)?|(critical|important|minor)\s*[:—–-])\s*[:—–-]?\s*(.*)$/i;
const SEVERITY_LABEL =
  /^[\s#*_`]*(critical|important|minor)(?:\s+(?:findings|issues))?[*_`]*\s*:?\s*[*_`]*\s*$/i;
const CANNOT_VERIFY = /^[\s#*_`[]*CANNOT[\s_-]+VERIFY[\]*_`]*\s*:?\s*[*_`]*\s*(.*)$/i;
const OTHER_LABEL = /^[\s#*_`]*[A-Za-z][A-Za-z _-]{2,}[*_`]*\s*:?\s*[*_`]*\s*$/;
const NONE = /^[*_`]*(none|n\/a|nothing|no findings|no issues)[*_`.]*$/i;
const REF =
  /`?((?:[\w@.+-]+\/)*[\w@+-][\w@.+-]*\.[\w]+|(?:[\w@.+-]+\/)+[\w@.+-]+)`?(?::(\d+)|#L(\d+))/;

function severityOf(word: string): Severity {
  const lower = word.toLowerCase();
  return SEVERITIES.find((s) => s.toLowerCase() === lower)!;
}

/** A finding of a severity from its text (the first file reference named). */
export function findingOf(severity: Severity, text: string): Finding {
  const clean = text.trim();
  const ref = REF.exec(clean);
  const line = ref ? Number(ref[2] ?? ref[3]) : undefined;
  return {
    severity,
    ...(ref ? { file: ref[1]!.replace(/^(a|b)\//, "") } : {}),
    ...(line !== undefined && Number.isFinite(line) ? { line } : {}),
    text: clean,
  };
}

/** Parses a reviewer's answer. */
export function parseVerdict(answer: string): Verdict {
  const lines = answer.replace(/\r\n?/g, "\n").split("\n");
  let spec: Verdict["spec"];
  let quality: Verdict["quality"];
  const findings: Finding[] = [];
  const cannotVerify: string[] = [];
  let section: Severity | "cannot" | null = null;
  for (const line of lines) {
    const s = SPEC.exec(line);
    if (s) {
      spec = s[1]!.toUpperCase() as "PASS" | "FAIL";
      section = null;
      continue;
    }
    const q = QUALITY.exec(line);
    if (q) {
      quality = q[1]!.toUpperCase().startsWith("APPROVED") ? "APPROVED" : "NEEDS-FIXES";
      section = null;
      continue;
    }
    const cv = CANNOT_VERIFY.exec(line);
    if (cv && !BULLET.test(line)) {
      section = "cannot";
      const rest = cv[1]!.trim();
      if (rest !== "" && !NONE.test(rest)) cannotVerify.push(rest);
      continue;
    }
    const label = SEVERITY_LABEL.exec(line);
    if (label && !BULLET.test(line)) {
      section = severityOf(label[1]!);
      continue;
    }
    const bullet = BULLET.exec(line);
    if (bullet) {
      const item = bullet[1]!.trim();
      if (item === "" || NONE.test(item)) continue;
      const sev = SEVERITY_START.exec(item);
      if (sev && sev[4]!.trim() !== "") {
        findings.push(findingOf(severityOf(sev[1] ?? sev[2] ?? sev[3]!), sev[4]!));
        if (section === "cannot") section = null;
      } else if (section === "cannot") cannotVerify.push(item);
      else if (section !== null) findings.push(findingOf(section, item));
      continue;
    }
    if (OTHER_LABEL.test(line) && line.trim() !== "") section = null;
  }
  return {
    ...(spec === undefined ? {} : { spec }),
    ...(quality === undefined ? {} : { quality }),
    findings,
    cannotVerify,
    complete: spec !== undefined && quality !== undefined,
  };
}

/** Counts of findings by severity. */
export function countFindings(findings: readonly Finding[]): Record<Severity, number> {
  const counts = { Critical: 0, Important: 0, Minor: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/** True when a review sends its task into the fix loop (SPEC FAIL, a Critical or Important). */
export function needsFixes(verdict: Pick<Verdict, "spec" | "findings" | "complete">): boolean {
  return !verdict.complete || verdict.spec === "FAIL" ||
    verdict.findings.some((f) => f.severity !== "Minor");
}
