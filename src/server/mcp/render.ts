/**
 * The short texts tool results carry next to their structured content: what a model reads
 * first. A run is one line (id, state, worker, time, counts), then its answer or its problem,
 * then the files it changed; a run still going says how to collect it.
 */
import { MODES, type RunReport } from "../../engine/mod.ts";
import { isFinal, runTime, workerOf } from "../../engine/present.ts";
import { formatDuration } from "../../sys/duration.ts";

/** The one-line summary of a run. */
export function runLine(run: RunReport, now: number): string {
  const p = run.progress;
  const state = isFinal(run.state) ? `${run.state} ${run.outcome ?? ""}`.trim() : run.state;
  const parts = [
    `run ${run.id}`,
    state,
    run.mode,
    workerOf(run),
    formatDuration(runTime(run, now)),
    `${p.steps} steps, ${p.tools} tool calls`,
  ];
  if (!isFinal(run.state) && p.last) parts.push(`last: ${p.last}`);
  return parts.join(" · ");
}

/** A run's text: its line, then the answer or problem and the changed files. */
export function runText(run: RunReport, now: number): string {
  const lines = [runLine(run, now)];
  if (!isFinal(run.state)) {
    lines.push(`still going: collect it with pitroom_wait {"runs": ["${run.id}"]}`);
    return lines.join("\n");
  }
  if (run.state !== "done" && run.message) {
    lines.push(`problem (exit ${run.exit ?? 1}): ${run.message}`);
  }
  if (run.answer) lines.push(run.answer);
  const files = run.changes?.files ?? [];
  if (files.length > 0) {
    lines.push(
      `changed: ${
        files.map((f) => `${f.path} (${f.status}, +${f.added} -${f.removed})`).join(", ")
      }`,
    );
    if (MODES[run.mode].usesCopy && run.isolation?.applied === undefined) {
      lines.push(`in a private copy: pitroom_apply {"run": "${run.id}"} writes it into the tree`);
    }
  }
  return lines.join("\n");
}

/** Several runs' texts, with the dashboard's address when there is one. */
export function runsText(runs: readonly RunReport[], now: number, dashboard?: string): string {
  const text = runs.map((r) => runText(r, now)).join("\n\n");
  return dashboard ? `${text}\n\nLive view of every run: ${dashboard}` : text;
}
