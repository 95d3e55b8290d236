/**
 * The codex failure classifier (pure). Codex ends a failed attempt with exit 1 and a
 * `turn.failed` whose message is either the provider's own text (a 404's "does not exist") or
 * codex's summary of it, as 0.169.0 prints them against the scripted model server:
 * - model not found: the server's message ("The model `x` does not exist ...") or a 404 status;
 * - rate limited: "exceeded retry limit, last status: 429 Too Many Requests" (the provider's
 *   retry-after and message are not shown), or "Selected model is at capacity" (503);
 * - quota: "Quota exceeded. Check your plan and billing details." (an `insufficient_quota` 429);
 * - auth: "unexpected status 401 Unauthorized: ..." (403 alike);
 * - anything else (500 "high demand", a bad flag with exit 2) is failed.
 * A per-day limit is only recognisable when its text reaches the output ("per day", "daily").
 * A failure before any turn is only on stderr, behind warnings ("WARNING: proceeding, even though
 * we could not create PATH aliases"): the message is the line that says what failed ("Not inside
 * a trusted directory ...", "Error loading config.toml: ...").
 */
import type { WorkerEvent } from "../../events/mod.ts";
import type { Outcome, ProcessEnd } from "../types.ts";
import { failureLine } from "../_stderr.ts";

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The wait a message asks for ("try again in 7m12s", "retry in 2s", "retry-after: 20"). */
export function retryHintMs(message: string): number | undefined {
  const phrase = /(?:try again|retry) in ((?:\d+(?:\.\d+)?(?:ms|h|m|s)\s*)+)/i.exec(message);
  if (phrase?.[1] !== undefined) {
    let total = 0;
    for (const part of phrase[1].matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
      total += Number(part[1]) * (UNITS_MS[part[2] ?? "s"] ?? 1000);
    }
    return finite(Math.round(total));
  }
  const header = /retry-after:?\s*(\d+(?:\.\d+)?)/i.exec(message);
  return header?.[1] === undefined ? undefined : finite(Math.round(Number(header[1]) * 1000));
}

function finite(ms: number): number | undefined {
  return Number.isFinite(ms) ? ms : undefined;
}

/** The class of a failure message. */
export function classifyMessage(message: string): Outcome["class"] {
  if (/quota exceeded|insufficient_quota|exceeded your current quota|usage limit/i.test(message)) {
    return "quota";
  }
  if (/\b40[13]\b|unauthori[sz]ed|forbidden|invalid api key|incorrect api key/i.test(message)) {
    return "auth";
  }
  if (/does not exist|model_not_found|model .*not found|\b404\b/i.test(message)) {
    return "model_not_found";
  }
  if (/\b429\b|too many requests|rate limit|at capacity|overloaded/i.test(message)) {
    return "rate_limited";
  }
  return "failed";
}

/** Classifies an ended codex attempt. */
export function classifyCodex(end: ProcessEnd, events: readonly WorkerEvent[]): Outcome {
  if (end.stopped) return { class: "stopped", message: "Stopped" };
  if (end.timedOut) return { class: "timeout", message: "Timed out" };
  const errors = events.filter((e) => e.type === "worker.error");
  const fatal = errors.filter((e) => e.name === "turn_failed").at(-1);
  if (end.code === 0 && fatal === undefined) return { class: "ok", message: "Done" };
  const message = fatal?.message ||
    errors.filter((e) => e.name === "stream_error").at(-1)?.message ||
    failureLine(end.stderr) ||
    `codex exited with ${end.code === null ? `signal ${end.signal ?? "?"}` : `code ${end.code}`}`;
  const kind = classifyMessage(message);
  const retryAfterMs = retryHintMs(message);
  const daily = kind === "quota" || kind === "rate_limited"
    ? /per day|daily|\bRPD\b/i.test(message)
    : false;
  return {
    class: daily ? "quota" : kind,
    message,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(daily ? { daily: true } : {}),
  };
}
