/**
 * `pitroom wait [RUN...] [-g GROUP] [--any] [--brief] [--timeout 540]`: exit 75 while anything
 * is still going, otherwise the exit code of the first run (in the order the tasks were given)
 * that failed; the reports come in that order too. On a terminal (stderr), and not under
 * `--json`, one line redrawn in place shows the runs going on (progress_line.ts) until then.
 */
import type { RunReport } from "../engine/mod.ts";
import { isFinal, scopeName } from "../engine/present.ts";
import { type DamagedRecord, UsageError } from "../sys/errors.ts";
import { engineFor } from "./engine_for.ts";
import type { CommandRun } from "./command.ts";
import type { WAIT_FLAGS } from "./wait_command.ts";
import { jsonText, sayDamaged } from "./output.ts";
import { printHandedOver } from "./handover.ts";
import { renderBrief, renderReport } from "./report.ts";
import { followProgress } from "./progress_line.ts";

/** The exit code of a set of ended runs: the first failing run's, else 0. */
export function groupExit(records: readonly RunReport[]): number {
  return records.find((r) => (r.exit ?? 1) !== 0)?.exit ?? (records.length > 0 ? 0 : 1);
}

/**
 * Runs in the order their tasks were given: by creation time, tasks given together (a crew) by
 * their index, then by id (ids of the same second end in a random suffix: not an order).
 */
export function inTaskOrder(records: readonly RunReport[]): RunReport[] {
  return [...records].sort((a, b) =>
    a.createdAt - b.createdAt || (a.taskIndex ?? 0) - (b.taskIndex ?? 0) || (a.id < b.id ? -1 : 1)
  );
}

/** Waits for runs and prints their reports. */
export const waitCommand: CommandRun<typeof WAIT_FLAGS> = async ({ sys, flags, args }) => {
  const group = flags.group;
  const engine = engineFor(sys, flags);
  const damaged: DamagedRecord[] = [];
  const onDamaged = (d: DamagedRecord) => damaged.push(d);
  const chosen = args.length > 0
    ? await engine.list({ runs: args })
    : group
    ? await engine.list({ group, onDamaged })
    : (await engine.list({ recent: 0 })).filter((r) => !isFinal(r.state));
  if (chosen.length === 0 && damaged.length === 0) {
    const elsewhere = (await engine.list({ recent: 0, all: true })).filter((r) =>
      !isFinal(r.state)
    );
    throw new UsageError(
      `Nothing to wait for: no runs are running in ${scopeName(await engine.scope())}`,
      {
        hint: elsewhere.length > 0
          ? `${elsewhere.length} run(s) of other repositories are running: \`pitroom status --all\``
          : "name a run: `pitroom wait RUN`",
      },
    );
  }
  const again = ["pitroom wait", ...(group && args.length === 0 ? ["-g", group] : args)];
  if (flags.dir !== undefined) again.push("-d", flags.dir);
  if (flags.any) again.push("--any");
  const ids = chosen.map((r) => r.id);
  // A person at a terminal sees the runs go on, on one line that is gone before the reports.
  const progress = ids.length > 0 && !flags.json && sys.out.errIsTTY
    ? followProgress(sys, engine, ids)
    : undefined;
  let records: RunReport[];
  try {
    records = ids.length === 0 ? [] : inTaskOrder(
      await engine.wait({ runs: ids }, {
        timeoutMs: flags.timeout,
        again: again.join(" "),
        ...(flags.any ? { any: true } : {}),
        onDamage: onDamaged,
      }),
    );
  } finally {
    await progress?.stop();
  }
  const now = sys.clock.now();
  await printHandedOver(sys, engine, "wait", records, (shown) => {
    if (flags.json) {
      return { text: jsonText(shown), parts: shown.map((r) => JSON.stringify(r, null, 2)) };
    }
    const parts = shown.map((r) => (flags.brief ? renderBrief(r, now) : renderReport(r, now)));
    return { text: parts.join(flags.brief ? "" : "\n"), parts };
  });
  // A damaged file met is said after the reports. A run whose record is damaged cannot be
  // waited for (its state is unknown): exit 7, never "still going". One whose events file is
  // ended by its record: its exit code stands.
  return sayDamaged(sys, damaged, {
    failed: damaged.some((d) => d.file === "run.json"),
    otherwise: groupExit(records),
  });
};
