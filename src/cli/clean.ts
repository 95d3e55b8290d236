/**
 * `pitroom clean [--days 14] [--yes] [--json]`: removes the folders of runs that ended more than
 * N days ago. Without --yes it only lists them. The history keeps every removed run.
 */
import { safeLine } from "./safe.ts";
import { type CleanItem, type CleanPlan, createEngine, type KeepReason } from "../engine/mod.ts";
import { UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import type { CLEAN_FLAGS } from "./clean_command.ts";
import { dateTime } from "./figures.ts";
import { notePreparation } from "./history.ts";
import { printJson, table } from "./output.ts";

type Engine = ReturnType<typeof createEngine>;

/**
 * Why each kept run stays, in words that name what would let it go: an unapplied isolate
 * patch stays until it is applied, and a discarded copy's patch is no exception.
 */
async function keepReasons(
  engine: Engine,
  keep: readonly { id: string; reason: KeepReason }[],
): Promise<Map<string, string>> {
  const reasons = new Map<string, string>();
  for (const k of keep) {
    if (k.reason === "live") {
      reasons.set(k.id, "still running");
      continue;
    }
    if (k.reason === "damaged-record") {
      reasons.set(
        k.id,
        `its run.json is damaged: left for you to look at (\`pitroom show ${k.id}\`)`,
      );
      continue;
    }
    const record = await engine.report(k.id).catch(() => null);
    reasons.set(
      k.id,
      record?.isolation?.discarded
        ? `copy discarded, patch not applied: clean keeps an unapplied patch until \`pitroom apply ${k.id}\` applies it`
        : `isolate patch not applied: \`pitroom apply ${k.id}\` applies it, \`pitroom discard ${k.id}\` drops its copy`,
    );
  }
  return reasons;
}

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
    safeLine(i.task, 60),
  ]));
}

/** The text of a dry run (pure). */
export function renderPlan(
  plan: CleanPlan,
  days: number,
  reasons: ReadonlyMap<string, string> = new Map(),
): string {
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
    for (const k of plan.keep) lines.push(`  ${k.id}  ${reasons.get(k.id) ?? k.reason}`);
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
export const cleanCommand: CommandRun<typeof CLEAN_FLAGS> = async ({ sys, flags }) => {
  const days = flags.days;
  if (!Number.isFinite(days) || days < 0) {
    throw new UsageError(`--days needs a number of days (0 or more), got "${flags.days}"`);
  }
  const engine = createEngine(sys);
  const found = await engine.history.planClean(days);
  const reasons = await keepReasons(engine, found.keep);
  if (!flags.yes) {
    if (flags.json) printJson(sys, { dryRun: true, days, ...found });
    else sys.out.stdout(renderPlan(found, days, reasons));
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
        s.reason === "changed" ? "changed since it was listed" : reasons.get(s.id) ?? s.reason
      }\n`,
    );
  }
  for (const k of found.keep) sys.out.stderr(`kept ${k.id}: ${reasons.get(k.id) ?? k.reason}\n`);
  return 0;
};
