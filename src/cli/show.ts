/**
 * `pitroom show [RUN] [--patch|--events|--json]`.
 */
import { readEvents } from "../engine/event_log.ts";
import { statePaths } from "../store/paths.ts";
import { RefusedError, UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import { printJson, printJsonLine } from "./output.ts";
import { renderReport } from "./report.ts";
import { loadNamed } from "./runs.ts";

/** Prints a run's report, patch or events. */
export const showCommand: CommandRun = async ({ sys, flags, args }) => {
  if ([flags.patch, flags.events].filter(Boolean).length > 1) {
    throw new UsageError("Choose one of --patch and --events");
  }
  const [record] = await loadNamed(sys, [args[0] ?? "last"]);
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
    for (const ev of await readEvents(runPaths.events)) printJsonLine(sys, ev);
    return 0;
  }
  if (flags.json) printJson(sys, record);
  else sys.out.stdout(renderReport(record, sys.clock.now()));
  return 0;
};
