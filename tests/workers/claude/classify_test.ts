import assert from "node:assert/strict";
import { classifyClaude } from "../../../src/workers/claude/classify.ts";
import type { ProcessEnd } from "../../../src/workers/types.ts";
import { recordedEvents, retryDelays } from "./_recorded.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  assert.deepStrictEqual(actual, expected, message);

function end(fields: Partial<ProcessEnd> = {}): ProcessEnd {
  return { code: 0, signal: null, timedOut: false, stopped: false, stderr: "", ...fields };
}

Deno.test("classifyClaude() is ok for a recorded answer with exit 0", async () => {
  const outcome = classifyClaude(end(), await recordedEvents("read_answer"));
  assertEquals(outcome.class, "ok");
});

Deno.test("classifyClaude() maps each recorded API error to its failure class", async () => {
  const expected: Record<string, string> = {
    model_not_found: "model_not_found",
    rate_limited: "rate_limited",
    overloaded: "rate_limited",
    quota: "quota",
    auth: "auth",
    server_error: "failed",
  };
  for (const [name, cls] of Object.entries(expected)) {
    const outcome = classifyClaude(end({ code: 1 }), await recordedEvents(name));
    assertEquals(outcome.class, cls, name);
    assert(outcome.message.length > 0);
  }
});

Deno.test("classifyClaude() takes the cooldown from the provider's retry-after", async () => {
  const outcome = classifyClaude(end({ code: 1 }), await recordedEvents("rate_limited"));
  const [delay] = await retryDelays("rate_limited");
  assert(delay !== undefined && delay >= 1000, `delay ${delay}`);
  assertEquals(outcome.retryAfterMs, delay);
  const overloaded = classifyClaude(end({ code: 1 }), await recordedEvents("overloaded"));
  assertEquals(overloaded.retryAfterMs, undefined);
});

Deno.test("classifyClaude() reads the quota from the message whatever the status", () => {
  const outcome = classifyClaude(end({ code: 1 }), [{
    type: "worker.error",
    time: 0,
    message: "API Error: Request rejected (429) · Your credit balance is too low to access the API",
    status: 429,
    retryable: false,
    name: "rate_limit_error",
  }]);
  assertEquals(outcome.class, "quota");
});

Deno.test("classifyClaude() says stopped and timeout from the process end first", async () => {
  const events = await recordedEvents("read_answer");
  assertEquals(classifyClaude(end({ stopped: true, code: 143 }), events).class, "stopped");
  assertEquals(
    classifyClaude(end({ timedOut: true, signal: "SIGKILL", code: null }), []).class,
    "timeout",
  );
});

Deno.test("classifyClaude() fails a run killed without a result line", () => {
  const outcome = classifyClaude(end({ code: 143 }), []);
  assertEquals(outcome, { class: "failed", message: "claude exited with 143" });
  const signalled = classifyClaude(end({ code: null, signal: "SIGKILL" }), []);
  assertEquals(signalled.message, "claude was killed by SIGKILL");
});

Deno.test("classifyClaude() fails a clean exit with no answer, naming stderr's last line", () => {
  assertEquals(classifyClaude(end(), []).message, "claude ended without an answer");
  const outcome = classifyClaude(end({ code: 1, stderr: "x\nError: bad flag\n" }), []);
  assertEquals(outcome.message, "claude exited with 1: Error: bad flag");
});
