/**
 * `pitroom status` and `pitroom ls`.
 */
import { isFinal, type RunRecord } from "../store/record.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import { formatDuration } from "./duration.ts";
import { printJson, table } from "./output.ts";
import { oneLine } from "../sys/text.ts";
import { runTime, workerLabel } from "./report.ts";
import { loadCurrent, loadGroup, loadNamed } from "./runs.ts";

function rows(records: RunRecord[], now: number): string {
  const header = ["RUN", "STATE", "MODE", "TIME", "STEPS", "WORKER", "NOW / RESULT"];
  return table([
    header,
    ...records.map((r) => [
      r.id,
      r.state,
      r.mode,
      formatDuration(runTime(r, now)),
      String(r.progress.steps),
      workerLabel(r),
      oneLine(isFinal(r.state) ? (r.answer ?? r.message ?? "") : (r.progress.last ?? r.task), 48),
    ]),
  ]);
}

function print(sys: Sys, records: RunRecord[], json: boolean, empty: string): number {
  if (json) printJson(sys, records);
  else if (records.length === 0) sys.out.stderr(`${empty}\n`);
  else sys.out.stdout(rows(records, sys.clock.now()));
  return 0;
}

/** Shows runs: the named ones, a group, or the live and recent ones. */
export const statusCommand: CommandRun = async ({ sys, flags, args }) => {
  const records = args.length > 0
    ? await loadNamed(sys, args)
    : flags.group
    ? await loadGroup(sys, flags.group as string)
    : await loadCurrent(sys, 10);
  return print(sys, records, flags.json === true, "No runs yet");
};

/** Lists runs newest first. */
export const lsCommand: CommandRun = async ({ sys, flags }) => {
  let records = flags.group
    ? await loadGroup(sys, flags.group as string)
    : await loadCurrent(sys, flags.limit as number);
  if (flags.running) records = records.filter((r) => !isFinal(r.state));
  records = records.reverse().slice(0, flags.limit as number);
  return print(
    sys,
    records,
    flags.json === true,
    flags.running ? "No runs are running" : "No runs yet",
  );
};
