/**
 * The audit's lines of a text report: the verdict and who gave it, the disputed claims, an
 * audit still running or failed, and the correction round's answer under it.
 */
import type { RunReport } from "../engine/mod.ts";
import { targetLabel } from "../engine/present.ts";
import { safe, safeLine, safeText } from "./safe.ts";

/** The report lines of a run's audit (none when it has none). */
export function auditLines(record: RunReport): string[] {
  const audit = record.audit;
  if (audit === undefined) return [];
  const by = audit.worker === undefined
    ? ""
    : ` by ${
      targetLabel({ worker: audit.worker, ...(audit.model ? { model: audit.model } : {}) })
    }`;
  const run = audit.run ? ` · run ${audit.run}` : "";
  const how = audit.sampled ? " (sampled)" : "";
  const lines = [""];
  if (audit.state === "running") lines.push(`audit    running${by}${how}${run}`);
  else if (audit.state === "failed") {
    lines.push(`audit    failed${by}${how}: ${safeLine(audit.message ?? "no verdict", 120)}${run}`);
  } else {
    const n = audit.disputed.length;
    lines.push(
      `audit    ${audit.verdict}${by}${how}${
        n > 0 ? ` · ${n} disputed claim${n === 1 ? "" : "s"}` : ""
      }${run}`,
    );
    for (const claim of audit.disputed) lines.push(`  - ${safe(claim)}`);
  }
  const fix = audit.fix;
  if (fix?.state === "running") lines.push(`correction running (run ${fix.run})`);
  else if (fix?.state === "failed") {
    lines.push(`correction failed: ${safeLine(fix.message ?? "no answer", 120)}`);
  } else if (fix?.answer !== undefined) {
    lines.push(
      "",
      `corrected answer (run ${fix.run}; the answer above is the first one):`,
      ...safeText(fix.answer).trimEnd().split("\n").map((l) => `  ${l}`),
    );
  }
  return lines;
}
