/**
 * A finished run's record written after its end: by an apply, a revert or a discard of its work,
 * or an audit or review of it. The record is written, then a `run.changed` line goes to the state
 * dir's change journal (store/changes.ts), which the feed hands every live reader (the dashboard,
 * MCP resource subscribers, `watch`: follow/feed.ts). Every write of a finished run's record goes
 * through here (tests/architecture/record_writes_test.ts keeps it so): none is missed. The record
 * is the truth: a line the file system refuses is logged, never a failure of what was done.
 */
import { event, type RunChange } from "../../events/mod.ts";
import { appendChange } from "../../store/changes.ts";
import { logFailure } from "../../store/log.ts";
import type { RunRecord } from "../../store/record.ts";
import type { HeldSys } from "../../store/state.ts";
import { isOsError } from "../../sys/fs.ts";
import { workOf } from "../follow/work.ts";

/** Writes a finished run's record that `by` changed, and tells the live readers. */
export async function saveChanged(sys: HeldSys, record: RunRecord, by: RunChange): Promise<void> {
  await sys.state.runs.write(record);
  const work = workOf(record);
  const change = event("run.changed", sys.clock.now(), {
    run: record.id,
    by,
    ...(work === null ? {} : { work }),
  });
  try {
    await appendChange(sys.state.paths, change);
  } catch (error) {
    if (!isOsError(error)) throw error;
    await logFailure(sys, "runs.log", {
      what: `telling live readers that run ${record.id} changed (${by})`,
      error,
    });
  }
}
