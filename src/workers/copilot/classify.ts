/**
 * Classifies an ended Copilot CLI attempt (pure) from its exit and its `session.error` events.
 * Copilot retries a 429 or 5xx five times itself (a few seconds in all) before it reports one
 * `session.error` and exits 1. Its `errorType` names the class ("rate_limit", "authentication",
 * "quota"), but a provider's quota 429 comes as "rate_limit" too, so the message's wording is
 * read first; a missing model is an error of type "query" with HTTP 404 ("Model 'x' not found on
 * provider").
 */
import type { EventOf, WorkerEvent } from "../../events/mod.ts";
import type { Outcome, ProcessEnd } from "../types.ts";
import { failureLine } from "../_stderr.ts";
import { retryAfterFromText } from "../opencode/parse.ts";

const QUOTA =
  /exceeded your current quota|insufficient_quota|quota exceeded|exhausted your (?:daily |monthly )?quota|premium requests|credit balance is too low|requests per day|\bRPD\b/i;
const DAILY = /per day|daily|\bRPD\b/i;
const RATE = /rate limit|rate_limit|too many requests|overloaded|at capacity/i;
const AUTH =
  /authentication failed|unauthori[sz]ed|invalid api key|not logged in|no authentication/i;
const NOT_FOUND = /model '[^']*' not found|model not found|does not exist|no such model/i;

function fromError(error: EventOf<"worker.error">): Outcome {
  const text = `${error.name ?? ""} ${error.message}`;
  const wait = retryAfterFromText(error.message);
  const hint = wait === undefined ? {} : { retryAfterMs: wait };
  const message = error.message.split("\n")[0] ?? error.message;
  if (error.status === 404 || NOT_FOUND.test(text)) return { class: "model_not_found", message };
  if (
    error.status === 401 || error.status === 403 || error.name === "authentication" ||
    AUTH.test(text)
  ) {
    return { class: "auth", message };
  }
  if (error.name === "quota" || QUOTA.test(text)) {
    return { class: "quota", message, ...hint, ...(DAILY.test(text) ? { daily: true } : {}) };
  }
  const busy = error.status === 429 || error.status === 503 || error.status === 529;
  if (busy || error.name === "rate_limit" || RATE.test(text)) {
    return { class: "rate_limited", message, ...hint };
  }
  return { class: "failed", message, ...hint };
}

/** Classifies an ended Copilot CLI attempt. */
export function classifyCopilot(end: ProcessEnd, events: readonly WorkerEvent[]): Outcome {
  if (end.stopped) return { class: "stopped", message: "Stopped" };
  if (end.timedOut) return { class: "timeout", message: "Copilot did not finish in time" };
  const answered = events.some((e) => e.type === "worker.answer");
  const error = events.findLast((e): e is EventOf<"worker.error"> => e.type === "worker.error");
  if (end.code === 0 && answered && error === undefined) {
    return { class: "ok", message: "Answered" };
  }
  if (error !== undefined) return fromError(error);
  if (end.code !== 0) {
    const detail = failureLine(end.stderr);
    const how = end.code === null
      ? `was killed by ${end.signal ?? "a signal"}`
      : `exited with code ${end.code}`;
    return {
      class: "failed",
      message: detail === "" ? `Copilot ${how}` : `Copilot ${how}: ${detail}`,
    };
  }
  return { class: "failed", message: "Copilot ended without an answer" };
}
