/**
 * A run's step timeline (pure): its events made into the steps a person reads (files read,
 * searches, commands, edits, the worker's words, errors, fallbacks), with times, and failures and
 * denials marked.
 */
import type { PitroomEvent } from "../api/types.ts";

/** One step of the timeline. */
export interface TimelineStep {
  time: number;
  /** read, search, list, edit, write, shell, web, task, other, text, error, run. */
  kind: string;
  label: string;
  detail: string | null;
  status: "ok" | "error" | "denied" | "info";
}

/** The steps of a run's events. */
export function timelineOf(events: PitroomEvent[]): TimelineStep[] {
  const out: TimelineStep[] = [];
  for (const ev of events) {
    switch (ev.type) {
      case "worker.tool_call":
        out.push({
          time: ev.time,
          kind: ev.kind,
          label: ev.target === "" ? ev.tool : ev.target,
          detail: ev.error ?? (ev.target === "" ? null : ev.tool),
          status: ev.status,
        });
        break;
      case "worker.denied":
        out.push({
          time: ev.time,
          kind: "other",
          label: ev.tool,
          detail: ev.message,
          status: "denied",
        });
        break;
      case "worker.text":
        if (ev.text.trim() !== "") {
          out.push({
            time: ev.time,
            kind: "text",
            label: ev.text.trim(),
            detail: null,
            status: "info",
          });
        }
        break;
      case "worker.error":
        out.push({
          time: ev.time,
          kind: "error",
          label: ev.message,
          detail: null,
          status: "error",
        });
        break;
      case "run.started":
        out.push({
          time: ev.time,
          kind: "run",
          label: `started ${ev.model ? `${ev.worker}:${ev.model}` : ev.worker}`,
          detail: `attempt ${ev.attempt}`,
          status: "info",
        });
        break;
      case "run.skipped":
        out.push({
          time: ev.time,
          kind: "run",
          label: `skipped ${ev.target}`,
          detail: "cooling down",
          status: "info",
        });
        break;
      case "run.fallback":
        out.push({
          time: ev.time,
          kind: "run",
          label: `fell back from ${ev.from} to ${ev.to}`,
          detail: `${ev.reason}: ${ev.message}`,
          status: "error",
        });
        break;
      case "run.finished":
        out.push({
          time: ev.time,
          kind: "run",
          label: `finished ${ev.outcome}`,
          detail: ev.message ?? null,
          status: ev.outcome === "ok" ? "ok" : "error",
        });
        break;
      case "run.lost":
        out.push({ time: ev.time, kind: "run", label: "lost", detail: ev.reason, status: "error" });
        break;
      default:
        break;
    }
  }
  return out;
}
