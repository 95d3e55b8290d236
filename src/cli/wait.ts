/**
 * `pitroom wait [RUN...] [-g GROUP] [--any] [--brief] [--timeout 540]`.
 */
import { waitForRuns } from "../engine/control.ts";
import { isFinal } from "../store/record.ts";
import { UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import { printJson } from "./output.ts";
import { renderBrief, renderReport } from "./report.ts";
import { loadCurrent, loadGroup, loadNamed } from "./runs.ts";

/** Waits for runs and prints their reports; exits with the worst run's code. */
export const waitCommand: CommandRun = async ({ sys, flags, args }) => {
  let records = args.length > 0
    ? await loadNamed(sys, args)
    : flags.group
    ? await loadGroup(sys, flags.group as string)
    : (await loadCurrent(sys, 0)).filter((r) => !isFinal(r.state));
  if (records.length === 0) {
    throw new UsageError("Nothing to wait for: no runs are running", {
      hint: "name a run: `pitroom wait RUN`",
    });
  }
  records = await waitForRuns(sys, records.map((r) => r.id), {
    timeoutMs: flags.timeout as number,
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
  return Math.max(0, ...records.map((r) => r.exit ?? 1));
};
