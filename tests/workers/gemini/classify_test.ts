import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { geminiBackend } from "../../../src/workers/gemini/mod.ts";
import type { ProcessEnd } from "../../../src/workers/types.ts";
import { recorded } from "./_recorded.ts";

async function outcomeOf(name: string, options: { stderr?: boolean } = {}) {
  const { events, end } = await recorded(name);
  return geminiBackend.classify(options.stderr === false ? { ...end, stderr: "" } : end, events);
}

const END: ProcessEnd = { code: 0, signal: null, timedOut: false, stopped: false, stderr: "" };

Deno.test("classify() calls a run with a success result ok", async () => {
  assertEquals(await outcomeOf("read_answer"), { class: "ok", message: "a.txt says hello." });
});

Deno.test("classify() reads model_not_found from exit 1 and 'is not found'", async () => {
  const outcome = await outcomeOf("error_model_not_found", { stderr: false });
  assertEquals(outcome.class, "model_not_found");
  assertEquals(outcome.message.startsWith("models/nosuch is not found"), true);
});

Deno.test("classify() reads a per-minute quota 429 as quota, not daily, with the retry hint", async () => {
  // RetryableQuotaError: "You exceeded your current quota ... PerMinute ... Please retry in 2s",
  // which opencode and codex read as quota too.
  for (const stderr of [false, true]) {
    const outcome = await outcomeOf("error_rate_limit", { stderr });
    assertEquals([outcome.class, outcome.retryAfterMs, outcome.daily], ["quota", 2000, undefined]);
  }
});

Deno.test("classify() reads a per-day quota as quota with daily set", async () => {
  const outcome = await outcomeOf("error_quota_daily", { stderr: false });
  assertEquals([outcome.class, outcome.daily], ["quota", true]);
});

Deno.test("classify() reads a 'limit: 0' quota as quota, not daily", async () => {
  const outcome = await outcomeOf("error_quota", { stderr: false });
  assertEquals([outcome.class, outcome.daily], ["quota", undefined]);
});

Deno.test("classify() reads API_KEY_INVALID as auth with the API's message", async () => {
  const outcome = await outcomeOf("error_auth", { stderr: false });
  assertEquals(outcome, {
    class: "auth",
    message: "400 API key not valid. Please pass a valid API key.",
  });
});

Deno.test("classify() reads exit 41 (no key, no auth method) as auth from stderr", async () => {
  assertEquals((await outcomeOf("error_no_key")).class, "auth");
  const outcome = await outcomeOf("error_no_auth_method");
  assertEquals(outcome, { class: "auth", message: "Invalid auth method selected." });
});

Deno.test("classify() reads 503 overloaded as rate_limited and 500 as failed", async () => {
  assertEquals((await outcomeOf("error_overloaded", { stderr: false })).class, "rate_limited");
  const server = await outcomeOf("error_server", { stderr: false });
  assertEquals([server.class, server.message.startsWith("500 An internal error")], [
    "failed",
    true,
  ]);
});

Deno.test("classify() lets stop and timeout win over gemini's exit 0 after SIGTERM", async () => {
  const { events, end } = await recorded("stopped");
  assertEquals(geminiBackend.classify({ ...end, stopped: true }, events).class, "stopped");
  assertEquals(geminiBackend.classify({ ...end, timedOut: true }, events).class, "timeout");
  assertEquals(geminiBackend.classify(end, events), {
    class: "failed",
    message: "Gemini ended without a result",
  });
});

Deno.test("classify() calls an answer with a non-zero exit failed", () => {
  const answer = { type: "worker.answer", time: 1, text: "half done" } as const;
  assertEquals(
    geminiBackend.classify({ ...END, code: 1, stderr: "boom" }, [answer]).class,
    "failed",
  );
});

/** gemini's start-up lines on stderr, as every API-error recording has them first. */
const START_UP = [
  "Warning: 256-color support not detected. Using a terminal with at least 256-color support is recommended for a better visual experience.",
  "[STARTUP] Phase 'cleanup_ops' was started but never ended. Skipping metrics.",
].join("\n");

Deno.test("classify() says what failed from stderr, not gemini's start-up warnings", async () => {
  const { events, end } = await recorded("error_bad_settings");
  const expected = {
    class: "failed",
    message: "Error in /private/home/.gemini/settings.json: Unexpected end of JSON input",
  };
  assertEquals(geminiBackend.classify(end, events), expected);
  const warned = { ...end, stderr: `${START_UP}\n${end.stderr}` };
  assertEquals(geminiBackend.classify(warned, events), expected);
  const noKey = await recorded("error_no_key");
  assertEquals(
    geminiBackend.classify({ ...noKey.end, stderr: `${START_UP}\n${noKey.end.stderr}` }, []),
    {
      class: "auth",
      message: "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.",
    },
  );
});
