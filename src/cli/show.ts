/**
 * `pitroom show [RUN] [--patch|--events|--full|--json]`: from the run folder, or from the history
 * once the folder was cleaned (show_kept.ts). A long report is clipped unless `--full`.
 */
import { createEngine } from "../engine/mod.ts";
import { UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import { printJson, printJsonLine } from "./output.ts";
import { deniedCalls, renderReport } from "./report.ts";
import { showKept } from "./show_kept.ts";

/** Prints a run's report, patch or events. */
export const showCommand: CommandRun = async ({ sys, flags, args }) => {
  if ([flags.patch, flags.events].filter(Boolean).length > 1) {
    throw new UsageError("Choose one of --patch and --events");
  }
  // --json combines with --patch ({id, patch}) and --events (JSON lines already); --full is the
  // text report's, so it never rides along silently.
  if (flags.full && (flags.patch || flags.events || flags.json)) {
    throw new UsageError("--full is for the text report: leave out --patch, --events and --json");
  }
  const engine = createEngine(sys);
  const typed = args[0] ?? "last";
  // A cleaned run has no folder any more; the history still keeps it.
  const found = await engine.found(typed);
  const record = found.report;
  if (flags.patch) {
    const patch = await engine.foundPatch(found);
    if (flags.json) printJson(sys, { id: record.id, patch });
    else sys.out.stdout(patch);
    return 0;
  }
  if (found.kept !== null) return showKept(sys, flags, found.kept);
  if (flags.events) {
    for (const ev of await engine.events(record.id)) printJsonLine(sys, ev);
    return 0;
  }
  if (flags.json) printJson(sys, record);
  else {
    const denied = deniedCalls(await engine.events(record.id));
    sys.out.stdout(renderReport(record, sys.clock.now(), { full: flags.full === true, denied }));
  }
  return 0;
};
