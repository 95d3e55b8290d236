/**
 * `pitroom plan status PLAN [--json]` and `pitroom plan note PLAN "Task N: ..."`: where a plan
 * stands (from the run records and notes alone) and the controller's notes. Times are local
 * (`2026-11-30 10:15`); `--json` keeps them as epoch milliseconds.
 */
import { createEngine, type PlanStatus, type ReviewRow, type TaskRow } from "../engine/mod.ts";
import { UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import type { PLAN_FLAGS } from "./plan_command.ts";
import { printJson, table } from "./output.ts";
import { safeLine } from "./safe.ts";
import { dateTime } from "./figures.ts";
import { verdictLabel } from "./plan_report.ts";

function reviewLabel(r: ReviewRow): string {
  if (r.state === "queued" || r.state === "running") return `${r.state} (${r.run})`;
  const f = r.findings;
  const counts = f.critical + f.important + f.minor > 0
    ? ` (${f.critical}C ${f.important}I ${f.minor}M)`
    : "";
  return `${verdictLabel(r)}${counts}`;
}

/** The last review with a verdict, then a newer attempt that gave none (failed or going). */
function reviewCell(row: TaskRow): string {
  if (row.lastReview === undefined) return "-";
  const newer = row.newerReview;
  if (newer === undefined) return reviewLabel(row.lastReview);
  const then = newer.state === "queued" || newer.state === "running"
    ? `${newer.state} (${newer.run})`
    : `${newer.run} ${newer.state === "lost" ? "lost" : "gave no verdict"}`;
  return `${reviewLabel(row.lastReview)}; then ${then}`;
}

/** The text of a plan's status. */
export function renderPlanStatus(status: PlanStatus): string {
  const lines = [`plan ${safeLine(status.title, 80)} · ${status.plan} · group ${status.group}`, ""];
  const rows = [["TASK", "STATE", "STATUS", "REVIEW", "FIXES", "APPLIED", "LAST NOTE"]];
  for (const t of status.tasks) {
    rows.push([
      `${t.step} ${safeLine(t.title, 40)}`,
      t.state,
      t.implementer ?? "-",
      reviewCell(t),
      String(t.fixRounds),
      t.applied ? "yes" : "no",
      t.lastNote === undefined ? "-" : safeLine(t.lastNote, 60),
    ]);
  }
  lines.push(table(rows).trimEnd());
  for (const r of status.rangeReviews) {
    lines.push("", `range review ${r.run}: ${verdictLabel(r)}`);
  }
  if (status.rulings.length > 0) {
    lines.push("", "rulings:");
    for (const n of status.rulings) {
      lines.push(`  ${dateTime(n.at)}  ${safeLine(n.text, 200)}`);
    }
  }
  return lines.join("\n") + "\n";
}

/** `plan status` and `plan note`. */
export const planCommand: CommandRun<typeof PLAN_FLAGS> = async ({ sys, flags, args }) => {
  const [action, plan, ...rest] = args;
  const engine = createEngine(sys);
  if (action === "status") {
    if (rest.length > 0) throw new UsageError("`plan status` takes one plan file");
    const status = await engine.planStatus(plan!);
    if (flags.json) printJson(sys, status);
    else sys.out.stdout(renderPlanStatus(status));
    return 0;
  }
  if (action === "note") {
    const note = await engine.planNote(plan!, rest.join(" "));
    if (flags.json) printJson(sys, note);
    else sys.out.stdout(`noted at ${dateTime(note.at)}\n`);
    return 0;
  }
  throw new UsageError(`Unknown plan action "${action}": expected status or note`, {
    hint: "see `pitroom help plan`",
  });
};
