/**
 * How a Qwen Code 0.24.4 attempt ended (pure), from what the real CLI printed against the model
 * server's error scenarios (tests/workers/qwen/testdata/): every API error ends the stream with a
 * `result` line whose `is_error` is true and whose `error.message` quotes the provider as
 * `[API Error: STATUS MESSAGE]`, exit 1.
 * - 404 "does not exist" -> model_not_found, at once.
 * - 401 "Incorrect API key" -> auth, at once.
 * - 429 and 5xx are retried 6 times (backing off from 1.5 s, or waiting what `retry-after` says)
 *   before that line: a 429 with quota wording ("exceeded your current quota",
 *   `insufficient_quota`) -> quota (daily when it says per day), otherwise -> rate_limited, and
 *   so is an overloaded provider (503, 529).
 * - SIGTERM: no `result` line; Pitroom's own timeout and stop come from the shell.
 */
import type { EventOf, WorkerEvent } from "../../events/mod.ts";
import type { Outcome, ProcessEnd } from "../types.ts";
import { failureLine } from "../_stderr.ts";
import { apiStatus, retryHintMs } from "./parse.ts";

const QUOTA =
  /exceeded your current quota|insufficient_quota|quota exceeded|exhausted your (?:daily )?quota|free (?:tier|usage|quota)[^.]*(?:exceeded|exhausted|limit)|requests per day|\bRPD\b|Arrearage|AllocationQuota/i;
const DAILY = /per day|daily|\bRPD\b/i;
const RATE = /rate limit|rate_limit|too many requests|throttl|overloaded|at capacity/i;
const AUTH =
  /free tier has been discontinued|incorrect api key|invalid api key|invalid_api_key|unauthori[sz]ed|authentication|no auth type|api key not valid|InvalidApiKey/i;
const NOT_FOUND =
  /model `?[^`\s]*`? does not exist|model not found|model_not_found|no such model|ModelNotFound|is not found/i;

/** Classifies an ended Qwen Code attempt. */
export function classifyQwen(end: ProcessEnd, events: readonly WorkerEvent[]): Outcome {
  if (end.stopped) return { class: "stopped", message: "Stopped" };
  if (end.timedOut) return { class: "timeout", message: "Qwen Code did not finish in time" };
  const answered = events.some((e) => e.type === "worker.answer");
  const error = events.findLast((e): e is EventOf<"worker.error"> =>
    e.type === "worker.error" && e.retryable !== true
  );
  if (end.code === 0 && answered && error === undefined) {
    return { class: "ok", message: "Answered" };
  }
  const text = `${error?.message ?? ""}\n${end.stderr}`;
  const message = error?.message.replace(/^\[API Error:\s*/, "").replace(/\]$/, "") ||
    failureLine(end.stderr) || `Qwen Code exited with ${end.code ?? end.signal}`;
  const status = error?.status ?? apiStatus(text);
  const wait = error?.retryAfterMs ?? retryHintMs(text);
  const hint = wait === undefined ? {} : { retryAfterMs: wait };
  if (status === 404 || NOT_FOUND.test(text)) return { class: "model_not_found", message };
  if (status === 401 || status === 403 || AUTH.test(text)) return { class: "auth", message };
  if (QUOTA.test(text)) {
    return { class: "quota", message, ...hint, ...(DAILY.test(text) ? { daily: true } : {}) };
  }
  if (status === 429 || status === 503 || status === 529 || RATE.test(text)) {
    return { class: "rate_limited", message, ...hint };
  }
  if (end.code === 0 && !answered) {
    return { class: "failed", message: "Qwen Code ended without an answer" };
  }
  return { class: "failed", message, ...hint };
}
