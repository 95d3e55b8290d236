/**
 * `pitroom show [RUN] [--patch|--events|--full|--json]`: from the run folder, or from the history
 * once the folder was cleaned or its run.json is damaged (show_kept.ts). A long report is
 * clipped unless `--full`. A damaged file met on the way is named in one line after what could
 * be printed: exit 7 when it kept out what was asked for (the events after the damage), else a
 * note (the report from the history's copy, or from the record when the events file is damaged).
 */
import { type DamagedRecord, UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import type { SHOW_FLAGS } from "./show_command.ts";
import { engineFor } from "./engine_for.ts";
import { printJson, printJsonLine, sayDamaged } from "./output.ts";
import { deniedCalls, renderReport } from "./report.ts";
import { showKept } from "./show_kept.ts";

/** Prints a run's report, patch or events. */
export const showCommand: CommandRun<typeof SHOW_FLAGS> = async ({ sys, flags, args }) => {
  if ([flags.patch, flags.events].filter(Boolean).length > 1) {
    throw new UsageError("Choose one of --patch and --events");
  }
  // --json combines with --patch ({id, patch}) and --events (JSON lines already); --full is the
  // text report's, so it never rides along silently.
  if (flags.full && (flags.patch || flags.events || flags.json)) {
    throw new UsageError("--full is for the text report: leave out --patch, --events and --json");
  }
  const engine = engineFor(sys, flags);
  const typed = args[0] ?? "last";
  // A cleaned run has no folder any more, a damaged run.json no record: the history keeps both.
  const found = await engine.found(typed);
  const record = found.report;
  const damaged: DamagedRecord[] = found.damage === undefined ? [] : [found.damage];
  if (flags.patch) {
    const patch = await engine.foundPatch(found);
    if (flags.json) printJson(sys, { id: record.id, patch });
    else sys.out.stdout(patch);
    return sayDamaged(sys, damaged, { failed: false, otherwise: 0 });
  }
  // A damaged run.json leaves its folder's events file: it is read as usual.
  if (found.kept !== null && !(found.damage !== undefined && flags.events)) {
    showKept(sys, flags, found.kept, found.damage === undefined ? "cleaned" : "damaged");
    return sayDamaged(sys, damaged, { failed: false, otherwise: 0 });
  }
  if (flags.json && !flags.events) {
    printJson(sys, record);
    return 0;
  }
  const events = await engine.eventsFound(record.id);
  const eventsDamaged = events.damage !== null;
  if (events.damage !== null) damaged.push(events.damage);
  if (flags.events) { for (const ev of events.events) printJsonLine(sys, ev); }
  else {
    const denied = deniedCalls(events.events);
    sys.out.stdout(renderReport(record, sys.clock.now(), { full: flags.full === true, denied }));
  }
  // The events after the damage are lost to --events; the report is the record's.
  return sayDamaged(sys, damaged, { failed: eventsDamaged && flags.events === true, otherwise: 0 });
};
