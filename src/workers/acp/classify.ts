/**
 * Classifies an ended ACP attempt (pure). The prompt's result with `end_turn` is an answer; an
 * error the agent reported (an error answer to the prompt, which is how agents pass on their
 * provider's failures) is read for the fallback classes by its words and HTTP status, the way the
 * built-in backends read theirs; a model the agent would not take is "model not found", so the
 * chain moves on; an agent that ended (or was ended) before answering fails with its exit and the
 * last line of its stderr.
 */
import type { EventOf, WorkerEvent } from "../../events/mod.ts";
import type { Outcome, ProcessEnd } from "../types.ts";
import { failureLine } from "../_stderr.ts";
import { ERROR_NAMES } from "./talk.ts";

const QUOTA =
  /exceeded your current quota|insufficient_quota|quota exceeded|exhausted your (?:daily )?quota|credit balance is too low|usage limit reached|requests per day/i;
const DAILY = /per day|daily/i;
const RATE =
  /\b429\b|rate limit|rate_limit|too many requests|resource exhausted|resource_exhausted|overloaded|at capacity|\b503\b|\b529\b/i;
const AUTH =
  /\b401\b|\b403\b|invalid api key|invalid_api_key|api key not valid|api_key_invalid|unauthori[sz]ed|authentication|auth(?:entication)? required/i;
const NOT_FOUND =
  /\b404\b|model not found|model[^.]* (?:is )?not found|no such model|does not exist|unknown model|not_found/i;
/** ACP's "authentication required" error code. */
const AUTH_REQUIRED = -32000;
const RETRY = /retry (?:in|after) ([0-9.]+)\s*(ms|s)\b/i;

function retryAfter(text: string): { retryAfterMs: number } | Record<string, never> {
  const found = RETRY.exec(text);
  if (found === null) return {};
  const value = Number.parseFloat(found[1] ?? "");
  if (!Number.isFinite(value)) return {};
  return { retryAfterMs: Math.round(found[2] === "ms" ? value : value * 1000) };
}

function fromError(error: EventOf<"worker.error">): Outcome {
  const message = error.message;
  if (error.name === ERROR_NAMES.model) return { class: "model_not_found", message };
  if (
    error.name === ERROR_NAMES.protocol || error.name === ERROR_NAMES.flood ||
    error.name === ERROR_NAMES.stop
  ) {
    return { class: "failed", message };
  }
  if (message.includes(`ACP error ${AUTH_REQUIRED})`) || AUTH.test(message)) {
    return { class: "auth", message };
  }
  if (QUOTA.test(message)) {
    return {
      class: "quota",
      message,
      ...retryAfter(message),
      ...(DAILY.test(message) ? { daily: true } : {}),
    };
  }
  if (RATE.test(message)) return { class: "rate_limited", message, ...retryAfter(message) };
  if (NOT_FOUND.test(message)) return { class: "model_not_found", message };
  return { class: "failed", message };
}

/** Classifies an ended ACP attempt. */
export function classifyAcp(end: ProcessEnd, events: readonly WorkerEvent[]): Outcome {
  if (end.stopped) return { class: "stopped", message: "Stopped" };
  if (end.timedOut) return { class: "timeout", message: "The ACP agent did not finish in time" };
  const error = events.findLast((e): e is EventOf<"worker.error"> => e.type === "worker.error");
  if (error !== undefined) return fromError(error);
  if (events.some((e) => e.type === "worker.answer")) return { class: "ok", message: "Answered" };
  const how = end.signal !== null ? `was ended by ${end.signal}` : `exited with code ${end.code}`;
  const last = failureLine(end.stderr);
  return {
    class: "failed",
    message: `The ACP agent ${how} before it answered the prompt${last ? `: ${last}` : ""}`,
  };
}
