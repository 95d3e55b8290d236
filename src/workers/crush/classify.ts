/**
 * Classifies an ended Crush attempt (pure) from its exit and the error it logged on stderr
 * (parse.ts): the provider's message inside "agent processing failed: ..." names the class.
 * Written from Crush's source and its providers' documented errors, not from a recording (the
 * binary cannot be fetched here).
 */
import type { EventOf, WorkerEvent } from "../../events/mod.ts";
import type { Outcome, ProcessEnd } from "../types.ts";
import { failureLine } from "../_stderr.ts";
import { retryAfterFromText } from "../opencode/parse.ts";

const QUOTA =
  /exceeded your current quota|insufficient_quota|quota exceeded|exhausted your (?:daily )?quota|credit balance is too low|requests per day|\bRPD\b/i;
const DAILY = /per day|daily|\bRPD\b/i;
const RATE = /\b429\b|rate limit|rate_limit|too many requests|overloaded|\b529\b|\b503\b/i;
const AUTH =
  /\b401\b|\b403\b|unauthori[sz]ed|invalid api key|invalid_api_key|incorrect api key|no providers configured/i;
const NOT_FOUND = /model .*not found|\b404\b|does not exist|no such model|model_not_found/i;

/** Classifies an ended Crush attempt. */
export function classifyCrush(end: ProcessEnd, events: readonly WorkerEvent[]): Outcome {
  if (end.stopped) return { class: "stopped", message: "Stopped" };
  if (end.timedOut) return { class: "timeout", message: "Crush did not finish in time" };
  const answered = events.some((e) => e.type === "worker.answer");
  if (end.code === 0 && answered) return { class: "ok", message: "Answered" };
  const error = events.findLast((e): e is EventOf<"worker.error"> => e.type === "worker.error");
  const text = error?.message ?? failureLine(end.stderr);
  if (end.code === 0) return { class: "failed", message: "Crush ended without an answer" };
  const message = text === "" ? `Crush exited with code ${end.code ?? end.signal}` : text;
  const wait = retryAfterFromText(text);
  const hint = wait === undefined ? {} : { retryAfterMs: wait };
  if (QUOTA.test(text)) {
    return { class: "quota", message, ...hint, ...(DAILY.test(text) ? { daily: true } : {}) };
  }
  if (AUTH.test(text)) return { class: "auth", message };
  if (RATE.test(text)) return { class: "rate_limited", message, ...hint };
  if (NOT_FOUND.test(text)) return { class: "model_not_found", message };
  return { class: "failed", message, ...hint };
}
