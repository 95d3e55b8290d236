/**
 * `pitroom clean [--days 14] [--yes] [--json]`: removes the folders of runs that ended more than
 * N days ago. Without --yes it only lists them. The history keeps every removed run.
 */
import {
  type CleanItem,
  type CleanPlan,
  createEngine,
  type KeepReason,
  oneLine,
} from "../engine/mod.ts";
import { UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import { dateTime } from "./figures.ts";
import { notePreparation } from "./history.ts";
import { printJson, table } from "./output.ts";

const REASONS: Record<KeepReason, string> = {
  live: "still running",
  "unapplied-patch": "isolate patch not applied (`pitroom apply` or `pitroom discard` it)",
};

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function itemRows(items: CleanItem[]): string {
  return table(items.map((i) => [
    `  ${i.id}`,
    i.state,
    i.endedAt === null ? "-" : dateTime(i.endedAt),
    size(i.bytes),
    oneLine(i.task, 60),
  ]));
}

/** The text of a dry run (pure). */
export function renderPlan(plan: CleanPlan, days: number): string {
  const lines: string[] = [];
  const bytes = plan.remove.reduce((s, i) => s + i.bytes, 0);
  if (plan.remove.length === 0) lines.push(`No run folders to remove (older than ${days} days)`);
  else {
    lines.push(
      `Would remove ${plan.remove.length} run folder(s) that ended over ${days} days ago (${
        size(bytes)
      }):`,
      itemRows(plan.remove).trimEnd(),
    );
  }
  if (plan.keep.length > 0) {
    lines.push("", `Kept ${plan.keep.length} old run(s):`);
    for (const k of plan.keep) lines.push(`  ${k.id}  ${REASONS[k.reason]}`);
  }
  if (plan.remove.length > 0) {
    lines.push(
      "",
      "The history keeps them: `pitroom show RUN` still prints their report, steps and patch.",
      `Remove them with: pitroom clean${days === 14 ? "" : ` --days ${days}`} --yes`,
    );
  }
  return lines.join("\n") + "\n";
}

/** `pitroom clean`. */
export const cleanCommand: CommandRun = async ({ sys, flags }) => {
  const days = flags.days as number;
  if (!Number.isFinite(days) || days < 0) {
    throw new UsageError(`--days needs a number of days (0 or more), got "${flags.days}"`);
  }
  const engine = createEngine(sys);
  const found = await engine.history.planClean(days);
  if (!flags.yes) {
    if (flags.json) printJson(sys, { dryRun: true, days, ...found });
    else sys.out.stdout(renderPlan(found, days));
    return 0;
  }
  const result = await engine.history.clean(found, {
    onPrepared: (prep) => notePreparation(sys, prep),
  });
  if (flags.json) {
    printJson(sys, { dryRun: false, days, cutoff: found.cutoff, ...result, keep: found.keep });
    return 0;
  }
  const bytes = result.removed.reduce((s, i) => s + i.bytes, 0);
  sys.out.stdout(
    result.removed.length === 0
      ? `No run folders removed (older than ${days} days)\n`
      : `Removed ${result.removed.length} run folder(s) (${
        size(bytes)
      }); the history keeps them (\`pitroom show RUN\`)\n`,
  );
  for (const s of result.skipped) {
    sys.out.stderr(
      `kept ${s.id}: ${
        s.reason === "changed" ? "changed since it was listed" : REASONS[s.reason]
      }\n`,
    );
  }
  for (const k of found.keep) sys.out.stderr(`kept ${k.id}: ${REASONS[k.reason]}\n`);
  return 0;
};
