/**
 * The pure classifier of an ended claude attempt. claude exits 1 on an API error and reports it
 * in its `result` line (`is_error`, `api_error_status`; `subtype` says "success" even then), which
 * the parser turns into a non-retryable `worker.error`. Statuses, from claude 2.1.328 against the
 * scripted model server: 404 model not found; 429 and 529 (overloaded) rate limited, after its own
 * retries; 401 "Invalid API key"; a 400 "Credit balance is too low" is the quota. A SIGTERM ends
 * it with 143 and no `result` line.
 */
import type { WorkerEvent } from "../../events/mod.ts";
import type { Outcome, ProcessEnd } from "../types.ts";
import { failureLine } from "../_stderr.ts";

type ErrorEvent = Extract<WorkerEvent, { type: "worker.error" }>;

/** The outcome of an API error reported by the `result` line. */
export function classifyApiError(error: ErrorEvent): Outcome {
  const { message, status, name } = error;
  const hint = error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs };
  if (/credit balance is too low/i.test(message) || name === "billing_error") {
    return { class: "quota", message };
  }
  if (status === 404 || name === "not_found_error" || name === "model_not_found") {
    return { class: "model_not_found", message };
  }
  if (
    status === 429 || status === 529 || name === "rate_limit_error" || name === "overloaded_error"
  ) {
    return { class: "rate_limited", message, ...hint };
  }
  if (
    status === 401 || status === 403 || name === "authentication_error" ||
    name === "permission_error" || /invalid api key/i.test(message)
  ) {
    return { class: "auth", message };
  }
  return { class: "failed", message, ...hint };
}

/** Classifies an ended claude attempt from how the process ended and the parsed events. */
export function classifyClaude(end: ProcessEnd, events: readonly WorkerEvent[]): Outcome {
  if (end.stopped) return { class: "stopped", message: "Stopped" };
  if (end.timedOut) return { class: "timeout", message: "Timed out" };
  const fatal = events.findLast((e): e is ErrorEvent =>
    e.type === "worker.error" && e.retryable !== true
  );
  if (fatal !== undefined) return classifyApiError(fatal);
  const answered = events.some((e) => e.type === "worker.answer");
  if (answered && end.code === 0) return { class: "ok", message: "Answered" };
  if (end.signal !== null) {
    return { class: "failed", message: `claude was killed by ${end.signal}` };
  }
  const detail = failureLine(end.stderr);
  if (end.code !== 0) {
    return {
      class: "failed",
      message: `claude exited with ${end.code}${detail === "" ? "" : `: ${detail}`}`,
    };
  }
  return { class: "failed", message: "claude ended without an answer" };
}
