/**
 * Classifies an ended OpenCode attempt (pure) from its exit, its `error` events (stream and
 * logged stderr errors) and whether an answer came. OpenCode retries 429, quota and 5xx answers
 * itself (5 times, backing off from 2 s, or waiting what `retry-after` says) before it reports
 * one `error` line and exits 1; a 404 or 401 is reported at once. An overloaded provider counts
 * as rate limited, as it does for the other backends. A model OpenCode cannot resolve (not in its
 * config, an unknown provider) fails before its first step with only an `UnknownError`
 * ("Unexpected server error") in the stream; the precise `ProviderModelNotFoundError` is only in
 * the stderr log (`--print-logs`), so an `UnknownError` before any step is read as the model not
 * being found, with or without that log line.
 */
import type { EventOf, WorkerEvent } from "../../events/mod.ts";
import type { Outcome, ProcessEnd } from "../types.ts";
import { failureLine } from "../_stderr.ts";
import { retryAfterFromText } from "./parse.ts";
import { type Flavour, OPENCODE } from "./flavour.ts";

const QUOTA =
  /exceeded your current quota|insufficient_quota|quota exceeded|exhausted your (?:daily )?quota|credit balance is too low|free usage exceeded|usage limit reached|requests per day|\bRPD\b/i;
const DAILY = /per day|daily|\bRPD\b/i;
const RATE =
  /rate limit|rate_limit|too many requests|resource exhausted|resource_exhausted|overloaded|at capacity/i;
const AUTH =
  /incorrect api key|invalid api key|invalid_api_key|unauthori[sz]ed|authentication|api key not valid|permission denied/i;
const NOT_FOUND =
  /ProviderModelNotFoundError|ProviderNotFoundError|model not found|model `?[^`\s]*`? does not exist|no such model|is not found/i;

/** A denial of an `ask` that `opencode run` rejected (stream or stderr wording). */
const ASK_REJECTED = /^permission asked and auto-rejected|user rejected permission/i;

function fromError(error: EventOf<"worker.error">, label: string): Outcome {
  const text = `${error.name ?? ""} ${error.message}`;
  const wait = error.retryAfterMs ?? retryAfterFromText(error.message);
  const hint = wait === undefined ? {} : { retryAfterMs: wait };
  const message = error.status === undefined
    ? error.message
    : `${error.message} (HTTP ${error.status})`;
  if (error.name === "AgentMissing") {
    return { class: "failed", message: `${label} did not load Pitroom's agent: ${error.message}` };
  }
  if (error.status === 404 || NOT_FOUND.test(text)) return { class: "model_not_found", message };
  if (error.status === 401 || error.status === 403 || AUTH.test(text)) {
    return { class: "auth", message };
  }
  if (QUOTA.test(text)) {
    return { class: "quota", message, ...hint, ...(DAILY.test(text) ? { daily: true } : {}) };
  }
  // An overloaded provider (503, 529) is as passing as a rate limit: cool down, move on.
  const busy = error.status === 429 || error.status === 503 || error.status === 529;
  if (busy || RATE.test(text)) return { class: "rate_limited", message, ...hint };
  return { class: "failed", message, ...hint };
}

/** Classifies an ended OpenCode attempt. */
export function classifyOpencode(end: ProcessEnd, events: readonly WorkerEvent[]): Outcome {
  return classifyFlavour(end, events, OPENCODE);
}

/** Classifies an ended attempt of an OpenCode-derived CLI. */
export function classifyFlavour(
  end: ProcessEnd,
  events: readonly WorkerEvent[],
  flavour: Flavour,
): Outcome {
  const label = flavour.label;
  if (end.stopped) return { class: "stopped", message: "Stopped" };
  if (end.timedOut) return { class: "timeout", message: `${label} did not finish in time` };
  const answered = events.some((e) => e.type === "worker.answer");
  const errors = events.filter((e): e is EventOf<"worker.error"> => e.type === "worker.error");
  if (end.code === 0 && answered && !errors.some((e) => e.name === "AgentMissing")) {
    return { class: "ok", message: "Answered" };
  }
  // A logged server error is more precise than the stream's "Unexpected server error".
  const error = errors.findLast((e) => e.name !== "UnknownError") ?? errors.at(-1);
  const stepped = events.some((e) => e.type === "worker.step");
  if (error?.name === "UnknownError" && !stepped) {
    return {
      class: "model_not_found",
      message: `${label} could not use the model: it failed before its first step with ` +
        `"${error.message}" (an unknown model or provider)`,
    };
  }
  if (error !== undefined) return fromError(error, label);
  if (end.code !== 0) {
    const detail = failureLine(end.stderr);
    const how = end.code === null
      ? `was killed by ${end.signal ?? "a signal"}`
      : `exited with code ${end.code}`;
    return {
      class: "failed",
      message: detail === "" ? `${label} ${how}` : `${label} ${how}: ${detail}`,
    };
  }
  const rejected = events.find((e): e is EventOf<"worker.denied"> =>
    e.type === "worker.denied" && ASK_REJECTED.test(e.message)
  );
  if (rejected !== undefined) {
    return {
      class: "failed",
      message: `${label} ended without an answer after auto-rejecting a "${rejected.tool}" ask`,
    };
  }
  return { class: "failed", message: `${label} ended without an answer` };
}
