/**
 * `pitroom show [RUN] [--patch|--events|--json]`: from the run folder, or from the history once
 * the folder was cleaned (show_kept.ts).
 */
import { readEventsFile } from "../store/events_file.ts";
import { statePaths } from "../store/paths.ts";
import type { RunRecord } from "../store/record.ts";
import { RefusedError, UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import { printJson, printJsonLine } from "./output.ts";
import { renderReport } from "./report.ts";
import { loadNamed } from "./runs.ts";
import { findKept, showKept } from "./show_kept.ts";

/** Prints a run's report, patch or events. */
export const showCommand: CommandRun = async ({ sys, flags, args }) => {
  if ([flags.patch, flags.events].filter(Boolean).length > 1) {
    throw new UsageError("Choose one of --patch and --events");
  }
  const typed = args[0] ?? "last";
  let record: RunRecord | undefined;
  try {
    [record] = await loadNamed(sys, [typed]);
  } catch (error) {
    // A cleaned run has no folder any more; the history still keeps it.
    if (!(error instanceof UsageError)) throw error;
    const kept = await findKept(sys, typed);
    if (kept === null) throw error;
    return showKept(sys, flags, kept);
  }
  if (record === undefined) return 2;
  const runPaths = statePaths(sys.stateDir).run(record.id);
  if (flags.patch) {
    let patch: string;
    try {
      patch = await Deno.readTextFile(runPaths.patch);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new RefusedError("no_patch", `Run "${record.id}" changed no files`);
    }
    if (flags.json) printJson(sys, { id: record.id, patch });
    else sys.out.stdout(patch);
    return 0;
  }
  if (flags.events) {
    for (const ev of await readEventsFile(runPaths.events)) printJsonLine(sys, ev);
    return 0;
  }
  if (flags.json) printJson(sys, record);
  else sys.out.stdout(renderReport(record, sys.clock.now()));
  return 0;
};
