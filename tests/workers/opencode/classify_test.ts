/**
 * The opencode classifier: every recorded ending, then the endings no recording holds.
 */
import assert from "node:assert/strict";
import { event, type WorkerEvent } from "../../../src/events/mod.ts";
import { classifyOpencode } from "../../../src/workers/opencode/classify.ts";
import type { Outcome, ProcessEnd } from "../../../src/workers/types.ts";
import { recorded, TIME } from "./_recorded.ts";

const RECORDED: [string, Outcome][] = [
  ["read_answer", { class: "ok", message: "Answered" }],
  ["denied_edit", { class: "ok", message: "Answered" }],
  ["error_404", {
    class: "model_not_found",
    message:
      "The model `error_404` does not exist or you do not have access to it. (model_not_found) (HTTP 404)",
  }],
  ["error_429", {
    class: "rate_limited",
    message:
      "Rate limit reached for error_429 on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. (rate_limit_exceeded) (HTTP 429)",
    retryAfterMs: 1000,
  }],
  ["error_quota", {
    class: "quota",
    message:
      "Rate limit reached for error_quota on requests per day (RPD): Limit 200, Used 200, Requested 1. Please try again in 7m12s. (rate_limit_exceeded) (HTTP 429)",
    retryAfterMs: 1000,
    daily: true,
  }],
  ["error_401", {
    class: "auth",
    message:
      "Incorrect API key provided: x. You can find your API key at https://platform.openai.com/account/api-keys. (invalid_api_key) (HTTP 401)",
  }],
  ["ask_rejected", {
    class: "failed",
    message: 'OpenCode ended without an answer after auto-rejecting a "bash" ask',
  }],
  ["error_unconfigured_model", {
    class: "model_not_found",
    message:
      "ProviderModelNotFoundError: Model not found: fake/not-in-config. Did you mean: error_unconfigured_model, missing?",
  }],
  // The same unknown model without `--print-logs`: the stream's UnknownError alone.
  ["error_unconfigured_model_no_logs", {
    class: "model_not_found",
    message: "OpenCode could not use the model: it failed before its first step with " +
      '"Unexpected server error. Check server logs for details." (an unknown model or provider)',
  }],
];

for (const [name, expected] of RECORDED) {
  Deno.test(`classifyOpencode() classifies recording ${name} as ${expected.class}`, async () => {
    const { end, events } = await recorded(name);
    assert.deepEqual(classifyOpencode(end, events), expected);
  });
}

Deno.test("classifyOpencode() keeps an UnknownError after a step a failure, not a missing model", () => {
  const step = event("worker.step", TIME, { index: 0 });
  const unknown = event("worker.error", TIME, {
    message: "Unexpected server error",
    name: "UnknownError",
  });
  const outcome = classifyOpencode({ ...ENDED, code: 1 }, [step, unknown]);
  assert.equal(outcome.class, "failed");
});

const ENDED: ProcessEnd = { code: 0, signal: null, timedOut: false, stopped: false, stderr: "" };
const ANSWER = event("worker.answer", TIME, { text: "Done." });

function apiError(status: number, message: string): WorkerEvent {
  return event("worker.error", TIME, {
    message,
    status,
    retryable: status === 429,
    name: "APIError",
  });
}

Deno.test("classifyOpencode() says stopped and timeout before anything else", () => {
  assert.equal(
    classifyOpencode({ ...ENDED, code: null, signal: "SIGTERM", stopped: true }, [ANSWER]).class,
    "stopped",
  );
  assert.equal(
    classifyOpencode({ ...ENDED, code: null, signal: "SIGKILL", timedOut: true }, []).class,
    "timeout",
  );
});

Deno.test("classifyOpencode() fails an exit 0 without an answer after an auto-rejected ask", () => {
  const denied = event("worker.denied", TIME, {
    tool: "bash",
    message: "permission asked and auto-rejected: touch x.txt",
  });
  assert.deepEqual(classifyOpencode(ENDED, [denied]), {
    class: "failed",
    message: 'OpenCode ended without an answer after auto-rejecting a "bash" ask',
  });
  assert.deepEqual(classifyOpencode(ENDED, []), {
    class: "failed",
    message: "OpenCode ended without an answer",
  });
});

Deno.test("classifyOpencode() fails a run that fell back from Pitroom's agent even with an answer", () => {
  const missing = event("worker.error", TIME, {
    message: 'agent "pitroom-read" not found. Falling back to default agent',
    name: "AgentMissing",
  });
  const outcome = classifyOpencode(ENDED, [missing, ANSWER]);
  assert.equal(outcome.class, "failed");
  assert.match(outcome.message, /did not load Pitroom's agent/);
});

Deno.test("classifyOpencode() tells an OpenAI quota 429 from a rate limit", () => {
  const quota = apiError(
    429,
    "You exceeded your current quota, please check your plan and billing details. (insufficient_quota)",
  );
  assert.equal(classifyOpencode({ ...ENDED, code: 1 }, [quota]).class, "quota");
  assert.equal(classifyOpencode({ ...ENDED, code: 1 }, [quota]).daily, undefined);
  const rate = apiError(429, "Too Many Requests");
  assert.equal(classifyOpencode({ ...ENDED, code: 1 }, [rate]).class, "rate_limited");
});

Deno.test("classifyOpencode() reads the retry wait from the message when no header gave one", () => {
  const rate = apiError(429, "Rate limit reached. Please try again in 1m30s.");
  assert.equal(classifyOpencode({ ...ENDED, code: 1 }, [rate]).retryAfterMs, 90_000);
});

Deno.test("classifyOpencode() maps 403 to auth and 500 to failed", () => {
  assert.equal(classifyOpencode({ ...ENDED, code: 1 }, [apiError(403, "Forbidden")]).class, "auth");
  assert.equal(
    classifyOpencode({ ...ENDED, code: 1 }, [apiError(500, "Internal")]).class,
    "failed",
  );
});

Deno.test("classifyOpencode() names the exit and the last stderr line of a crash", () => {
  const outcome = classifyOpencode(
    { ...ENDED, code: 1, stderr: "boot\nError: Unexpected error\n" },
    [],
  );
  assert.deepEqual(outcome, {
    class: "failed",
    message: "OpenCode exited with code 1: Error: Unexpected error",
  });
});

Deno.test("classifyOpencode() counts an overloaded provider (503, 529) as rate limited", () => {
  for (const status of [503, 529]) {
    const busy = apiError(status, "The engine is currently overloaded, please try again later.");
    assert.equal(
      classifyOpencode({ ...ENDED, code: 1 }, [busy]).class,
      "rate_limited",
      `HTTP ${status}`,
    );
  }
});
