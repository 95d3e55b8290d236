/**
 * `pitroom wait [RUN...] [-g GROUP] [--any] [--brief] [--timeout 540]`: exit 75 while anything
 * is still going, otherwise the exit code of the first run (in run order) that failed.
 */
import { createEngine, isFinal, type RunReport } from "../engine/mod.ts";
import { UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import { printJson } from "./output.ts";
import { renderBrief, renderReport } from "./report.ts";

/** The exit code of a set of ended runs: the first failing run's, else 0. */
export function groupExit(records: readonly RunReport[]): number {
  return records.find((r) => (r.exit ?? 1) !== 0)?.exit ?? (records.length > 0 ? 0 : 1);
}

/** Waits for runs and prints their reports. */
export const waitCommand: CommandRun = async ({ sys, flags, args }) => {
  const group = flags.group as string | undefined;
  const engine = createEngine(sys);
  const chosen = args.length > 0
    ? await engine.list({ runs: args })
    : group
    ? await engine.list({ group })
    : (await engine.list({ recent: 0 })).filter((r) => !isFinal(r.state));
  if (chosen.length === 0) {
    throw new UsageError("Nothing to wait for: no runs are running", {
      hint: "name a run: `pitroom wait RUN`",
    });
  }
  const again = ["pitroom wait", ...(group && args.length === 0 ? ["-g", group] : args)];
  if (flags.any) again.push("--any");
  const records = await engine.wait({ runs: chosen.map((r) => r.id) }, {
    timeoutMs: flags.timeout as number,
    again: again.join(" "),
    ...(flags.any ? { any: true } : {}),
  });
  if (flags.json) printJson(sys, records);
  else {
    const now = sys.clock.now();
    sys.out.stdout(
      records.map((r) => (flags.brief ? renderBrief(r, now) : renderReport(r, now))).join(
        flags.brief ? "" : "\n",
      ),
    );
  }
  return groupExit(records);
};
