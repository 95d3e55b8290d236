/**
 * How a gemini 0.61.0 attempt ended (pure), from what the real CLI printed against the model
 * server's error scenarios (see tests/workers/gemini/testdata/):
 * - success: a `result` line with status "success", exit 0.
 * - 404: exit 1, "models/X is not found" -> model_not_found.
 * - other API errors exit with the HTTP status mod 256: 429 -> 173, 400 -> 144, 503 -> 247,
 *   500 -> 244. A per-minute quota 429 (`RetryableQuotaError: You exceeded your current quota
 *   ... PerMinute`, "Please retry in 2s") -> quota, not daily, with the hint, as the other
 *   backends read the same wording; a per-day quota id makes the CLI say "You have exhausted your
 *   daily quota" -> quota, daily; "limit: 0" (no quota for the model at all) -> quota; a 429
 *   without quota wording and 503 "overloaded" -> rate_limited.
 * - a bad key: 400 API_KEY_INVALID ("API key not valid"), exit 144; no usable auth method: exit 41
 *   -> auth.
 * - SIGTERM: exit 0 and no `result` line; Pitroom's own timeout and stop come from the shell.
 */
import type { WorkerEvent } from "../../events/mod.ts";
import type { Outcome, ProcessEnd } from "../types.ts";
import { failureLine } from "../_stderr.ts";
import { retryHintMs } from "./parse.ts";

/** Gemini's exit code when no usable auth method is configured. */
export const EXIT_AUTH = 41;
/** Exit codes of HTTP errors (status mod 256) that mean "slow down". */
const EXIT_RATE = new Set([173, 247]);

/** One line for people: the API's own message when the text quotes its JSON error. */
function firstLine(text: string): string {
  const line = (text.split("\n").find((l) => l.trim() !== "") ?? "")
    .replace(/^\[API Error: /, "").replace(/\]$/, "").trim();
  const quoted = /\{"error":\{.*\}\}/.exec(line)?.[0];
  if (quoted !== undefined) {
    try {
      const { error } = JSON.parse(quoted) as { error?: { code?: unknown; message?: unknown } };
      if (typeof error?.message === "string") {
        return (typeof error.code === "number" ? `${error.code} ${error.message}` : error.message)
          .slice(0, 300);
      }
    } catch (cause) {
      if (!(cause instanceof SyntaxError)) throw cause;
    }
  }
  return line.slice(0, 300);
}

function retryOf(text: string): { retryAfterMs?: number } {
  const ms = retryHintMs(text);
  return ms === undefined ? {} : { retryAfterMs: ms };
}

/** The CLI's own words for a per-day quota, or a per-day quota id quoted from the API error. */
const DAILY = /exhausted your daily quota|"quotaId"\s*:\s*"[^"]*(?:PerDay|Daily)/i;

/** Classifies an ended gemini attempt (pure). */
export function classifyGemini(end: ProcessEnd, events: readonly WorkerEvent[]): Outcome {
  if (end.stopped) return { class: "stopped", message: "Stopped" };
  if (end.timedOut) return { class: "timeout", message: "Gemini ran out of time" };
  const answer = events.findLast((e) => e.type === "worker.answer");
  const error = events.findLast((e) => e.type === "worker.error" && e.name !== "warning");
  if (answer !== undefined && error === undefined && end.code === 0) {
    return { class: "ok", message: firstLine(answer.text) || "Done" };
  }
  const reported = error?.type === "worker.error" ? error.message : "";
  const text = `${reported}\n${end.stderr}`;
  const message = firstLine(reported) || firstLine(failureLine(end.stderr)) ||
    `gemini exited with ${end.code ?? end.signal}`;

  if (DAILY.test(text)) {
    return { class: "quota", message, daily: true, ...retryOf(text) };
  }
  if (/is not found|NOT_FOUND|ModelNotFoundError/.test(text) && end.code !== 0) {
    return { class: "model_not_found", message };
  }
  if (
    end.code === EXIT_AUTH || /API_KEY_INVALID|API key not valid|UNAUTHENTICATED/.test(text) ||
    /PERMISSION_DENIED|Invalid auth method|must specify the GEMINI_API_KEY/i.test(text)
  ) {
    return { class: "auth", message };
  }
  if (/limit: 0(?![\d.])|INSUFFICIENT_G1_CREDITS_BALANCE|exceeded your current quota/i.test(text)) {
    return { class: "quota", message, ...retryOf(text) };
  }
  if (
    (end.code !== null && EXIT_RATE.has(end.code)) ||
    /RESOURCE_EXHAUSTED|overloaded|UNAVAILABLE|capacity/i.test(text)
  ) {
    return { class: "rate_limited", message, ...retryOf(text) };
  }
  if (end.code === 0 && answer === undefined && error === undefined) {
    return { class: "failed", message: "Gemini ended without a result" };
  }
  return { class: "failed", message };
}
