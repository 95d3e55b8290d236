/**
 * Reading an auditor's reply (pure and strict): one verdict line `AUDIT: AGREE|PARTLY|DISAGREE`
 * (markdown emphasis or backticks around it are allowed, nothing else on the line), and a
 * `DISPUTED:` list of claims (`- claim` lines after it, or `DISPUTED: none`). A reply without a
 * verdict line, with two different verdicts, an AGREE that disputes claims or a PARTLY/DISAGREE
 * that disputes none is a failed audit: it is never read as AGREE.
 */
import type { AuditVerdict } from "../../store/record.ts";

/** A reply read: a verdict and its disputed claims, or why there is none. */
export type ParsedAudit =
  | { ok: true; verdict: AuditVerdict; disputed: string[] }
  | { ok: false; message: string };

const VERDICTS: readonly AuditVerdict[] = ["AGREE", "PARTLY", "DISAGREE"];

/** A line without markdown emphasis, backticks and the spaces around them. */
function bare(line: string): string {
  return line.trim().replace(/^[*_`>#\s]+/, "").replace(/[*_`\s]+$/, "");
}

const AUDIT_LINE = /^AUDIT\s*:\s*(.*)$/i;
const DISPUTED_LINE = /^DISPUTED\s*:\s*(.*)$/i;
const ITEM = /^(?:[-*•]|\d+[.)])\s+(.+)$/;
const NONE = /^\(?(none|nothing|n\/a|-)\)?\.?$/i;

/** Reads an auditor's reply. */
export function parseAudit(text: string): ParsedAudit {
  const lines = text.split(/\r?\n/);
  const verdicts = new Set<AuditVerdict>();
  let disputedAt = -1;
  for (const [i, raw] of lines.entries()) {
    const line = bare(raw);
    const audit = AUDIT_LINE.exec(line);
    if (audit) {
      const word = bare(audit[1]!).toUpperCase();
      if (!(VERDICTS as readonly string[]).includes(word)) {
        return { ok: false, message: `the AUDIT line names no verdict: "${line.slice(0, 80)}"` };
      }
      verdicts.add(word as AuditVerdict);
    } else if (DISPUTED_LINE.test(line) && disputedAt < 0) disputedAt = i;
  }
  if (verdicts.size === 0) return { ok: false, message: "the reply has no AUDIT line" };
  if (verdicts.size > 1) {
    return { ok: false, message: `the reply gives two verdicts: ${[...verdicts].join(", ")}` };
  }
  const verdict = [...verdicts][0]!;
  const disputed = disputedAt < 0 ? [] : claimsFrom(lines, disputedAt);
  if (verdict === "AGREE" && disputed.length > 0) {
    return { ok: false, message: `the reply says AGREE but disputes ${disputed.length} claim(s)` };
  }
  if (verdict !== "AGREE" && disputed.length === 0) {
    return { ok: false, message: `the reply says ${verdict} but lists no disputed claim` };
  }
  return { ok: true, verdict, disputed };
}

/** The claims of the `DISPUTED:` list starting at line `at`. */
function claimsFrom(lines: string[], at: number): string[] {
  const claims: string[] = [];
  const inline = bare(DISPUTED_LINE.exec(bare(lines[at]!))![1]!);
  if (inline !== "" && !NONE.test(inline)) claims.push(inline);
  for (const raw of lines.slice(at + 1)) {
    const line = raw.trim();
    if (line === "") {
      if (claims.length > 0) break;
      continue;
    }
    if (AUDIT_LINE.test(bare(line))) break;
    const item = ITEM.exec(line);
    if (item) {
      const claim = item[1]!.trim();
      if (!NONE.test(claim)) claims.push(claim);
    } else if (/^\s/.test(raw) && claims.length > 0) {
      claims[claims.length - 1] += ` ${line}`;
    } else break;
  }
  return claims;
}
