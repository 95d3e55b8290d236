/**
 * Waiting on runs inside a tool call: one engine subscription folds the runs' events (no
 * polling), the wait ends when all (or any) of them ended, the time is up, or the call is
 * cancelled; meanwhile a progress token gets `notifications/progress` every few seconds while
 * something changed ("running · read · 12s · 3 steps, 2 tool calls · last: ..."; a run whose
 * worker went silent past its stall time: "stalled (no event for 10m) · read · ...").
 */
import type { RunReport, RunView } from "../../engine/mod.ts";
import { LiveFold, liveState } from "../../engine/present.ts";
import { formatDuration } from "../../sys/duration.ts";
import type { ToolContext } from "./tool.ts";
import { DamagedRecord } from "../../sys/errors.ts";

/** How often progress goes out at most. */
export const PROGRESS_EVERY_MS = 3000;

/** Options of `followRuns`. */
export interface FollowOptions {
  timeoutMs: number;
  /** End once one run ended. */
  any?: boolean;
  /**
   * Told of each damaged file met, one line each (which file, what still works): a run whose
   * record is damaged is left out of the reports, one whose events file is ends by its record.
   */
  onDamage?(line: string): void;
}

/**
 * Follows `ids` until they ended (or one did, with `any`) or `timeoutMs` passed; resolves with
 * every run's report then. Rejects with the abort reason when the call is cancelled.
 */
export async function followRuns(
  ctx: ToolContext,
  ids: readonly string[],
  options: FollowOptions,
): Promise<RunReport[]> {
  const { engine, clock, extra } = ctx;
  const fold = new LiveFold();
  const ended = new Set<string>();
  const done = Promise.withResolvers<void>();
  const token = extra._meta?.progressToken;
  let changed = true;
  let sent = 0;
  const progress = () => {
    if (token === undefined || !changed) return;
    changed = false;
    const message = progressMessage(fold.runs(), ended, clock.now());
    extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: token, progress: ++sent, message },
    }).catch(() => {
      // A session that closed meanwhile gets no progress: the wait ends with it.
    });
  };
  const feed = engine.subscribe({ runs: ids }, ({ run, event }) => {
    if (event.type === "run.finished" || event.type === "run.lost") {
      ended.add(run);
      changed = true;
      if (options.any || ended.size === ids.length) done.resolve();
      return;
    }
    if (fold.apply(run, event) !== null || event.type === "run.progress") changed = true;
  }, {
    onRun: (record) => fold.add(record),
    onStall: (run, stall) => {
      if (fold.stall(run, stall) !== null) changed = true;
    },
    onDamage: (damage) => {
      options.onDamage?.(damage.message);
      // A run whose record is damaged cannot be followed to its end: it counts as ended.
      if (damage.file !== "run.json") return;
      ended.add(damage.run);
      if (options.any || ended.size === ids.length) done.resolve();
    },
  });
  feed.ended.then(() => done.resolve(), (error) => done.reject(error));
  feed.ready.then(progress, (error) => done.reject(error));
  const timeout = clock.after(options.timeoutMs, () => done.resolve());
  const ticker = token === undefined ? undefined : clock.every(PROGRESS_EVERY_MS, progress);
  const onAbort = () => done.reject(extra.signal.reason ?? new Error("cancelled"));
  if (extra.signal.aborted) onAbort();
  extra.signal.addEventListener("abort", onAbort, { once: true });
  try {
    await done.promise;
  } finally {
    timeout.cancel();
    ticker?.cancel();
    extra.signal.removeEventListener("abort", onAbort);
    await feed.close();
  }
  const reports = await Promise.all(ids.map((id) =>
    engine.report(id).catch((error) => {
      if (!(error instanceof DamagedRecord)) throw error;
      options.onDamage?.(error.message);
      return null;
    })
  ));
  return reports.filter((r) => r !== null);
}

/** The progress text: one run's line, or how many ended and the first one going. */
export function progressMessage(
  runs: readonly RunView[],
  ended: ReadonlySet<string>,
  now: number,
): string {
  const going = runs.filter((v) => !ended.has(v.id));
  const first = going[0];
  const line = first === undefined ? "all ended" : viewLine(first, now);
  return runs.length <= 1 ? line : `${ended.size} of ${runs.length} runs ended · ${line}`;
}

function viewLine(view: RunView, now: number): string {
  const parts = [liveState(view, now), view.mode];
  if (view.startedAt !== undefined) parts.push(formatDuration(now - view.startedAt));
  parts.push(`${view.steps} steps, ${view.tools} tool calls`);
  if (view.last) parts.push(`last: ${view.last}`);
  return parts.join(" · ");
}
