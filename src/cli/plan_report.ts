/**
 * The plan and review lines of a run's text report: a plan run starts with `plan: … · STATUS
 * <value>` and its open issues; a review run with its verdict, findings and what was redacted;
 * a reviewed run lists its reviews.
 */
import { basename } from "../sys/path.ts";
import type { RunReport } from "../engine/mod.ts";
import { safeLine } from "./safe.ts";

type Verdict = NonNullable<NonNullable<RunReport["review"]>["verdict"]>;

/**
 * `SPEC PASS · QUALITY APPROVED`; an incomplete verdict keeps the line it has (a `SPEC FAIL`
 * without its QUALITY line is still a FAIL) and names the one missing.
 */
export function verdictLabel(v: Pick<Verdict, "spec" | "quality" | "complete">): string {
  if (v.complete) return `SPEC ${v.spec} · QUALITY ${v.quality}`;
  const missing = [v.spec ? "" : "SPEC", v.quality ? "" : "QUALITY"].filter(Boolean);
  const given = [v.spec ? `SPEC ${v.spec}` : "", v.quality ? `QUALITY ${v.quality}` : ""]
    .filter(Boolean);
  const failed = `failed review (no ${missing.join(" or ")} line)`;
  return given.length === 0 ? failed : `${given.join(" · ")} · ${failed}`;
}

function findingCounts(v: Verdict): string {
  const c = (s: string) => v.findings.filter((f) => f.severity === s).length;
  const counts = `${c("Critical")} Critical, ${c("Important")} Important, ${c("Minor")} Minor`;
  return `${counts}${v.cannotVerify.length > 0 ? `, ${v.cannotVerify.length} CANNOT VERIFY` : ""}`;
}

/** The lines a report starts with for a plan or review run (none for others). */
export function planReportHead(record: RunReport): string[] {
  const lines: string[] = [];
  if (record.plan !== undefined && record.review === undefined) {
    const status = record.implementer?.status ?? (record.state === "done" ? "unknown" : "-");
    lines.push(
      `plan: ${safeLine(basename(record.plan.path), 60)} · Task ${record.plan.step}: ${
        safeLine(record.plan.title, 60)
      } · STATUS ${status}`,
    );
    const issues = record.implementer?.openIssues ?? [];
    if (issues.length > 0) {
      lines.push("open issues:", ...issues.map((i) => `  - ${safeLine(i, 160)}`));
    }
  }
  const review = record.review;
  if (review !== undefined) {
    const what = review.kind === "range"
      ? `range ${review.range?.typed ?? ""} (${review.range?.commits ?? 0} commits)`
      : `${review.kind === "fix" ? "fix round" : "task review"} of ${review.of}`;
    lines.push(
      `review: ${safeLine(what, 100)}${review.verdict ? ` · ${verdictLabel(review.verdict)}` : ""}`,
    );
    const red = review.redacted;
    const total = red.files.length + red.secrets;
    lines.push(
      total === 0
        ? "redacted: nothing"
        : `redacted: ${total} (${red.files.length} secret file(s) by name${
          red.files.length > 0 ? `: ${red.files.map((f) => safeLine(f, 40)).join(", ")}` : ""
        }; ${red.secrets} secret(s) by content)`,
    );
    if (review.verdict) {
      lines.push(`findings: ${findingCounts(review.verdict)}`);
      for (const f of review.verdict.findings) {
        lines.push(`  [${f.severity}] ${safeLine(f.text, 160)}`);
      }
      for (const c of review.verdict.cannotVerify) {
        lines.push(`  [CANNOT VERIFY] ${safeLine(c, 160)}`);
      }
    }
  }
  for (const r of record.reviews ?? []) {
    lines.push(`reviewed by ${r.run} (${r.kind}): ${verdictLabel(r)} · ${findingCounts(r)}`);
  }
  return lines;
}
