/**
 * What became of a finished run's work, from its record alone (pure): the one word the
 * dashboard's card, the `run.changed` event and `watch` say it with.
 */
import type { WorkState } from "../../events/mod.ts";
import type { RunRecord } from "../../store/record.ts";
import { MODES } from "../../workers/modes.ts";

/**
 * What became of a finished run's work: an answer from the cache, its changes reverted, an
 * isolate patch applied, its copy discarded, or a patch not applied yet; null for a live run and
 * a run with nothing to say.
 */
export function workOf(record: RunRecord): WorkState | null {
  if (record.state === "queued" || record.state === "running") return null;
  if (record.cached !== undefined) return "cached";
  if (record.changes?.reverted) return "reverted";
  const iso = record.isolation;
  if (!MODES[record.mode].usesCopy || iso === undefined) return null;
  if (iso.applied !== undefined) return "applied";
  if (iso.discarded !== undefined) return "discarded";
  return record.state === "done" && (record.changes?.files.length ?? 0) > 0 ? "not-applied" : null;
}
