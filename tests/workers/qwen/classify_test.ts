import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { classifyQwen } from "../../../src/workers/qwen/classify.ts";
import { recorded } from "./_recorded.ts";

async function classOf(name: string) {
  const { events, end } = await recorded(name);
  return classifyQwen(end, events);
}

Deno.test("classifyQwen() reads each recorded ending as its class", async () => {
  const table: [string, string][] = [
    ["read_answer", "ok"],
    ["read_denied", "ok"],
    ["edit_write", "ok"],
    ["resumed", "ok"],
    ["error_model_not_found", "model_not_found"],
    ["error_auth", "auth"],
    ["error_rate_limit", "rate_limited"],
    ["error_quota", "quota"],
    ["error_quota_reset", "quota"],
    ["error_quota_daily", "quota"],
    ["error_overloaded", "rate_limited"],
    ["stopped", "failed"],
  ];
  for (const [name, expected] of table) {
    assertEquals([name, (await classOf(name)).class], [name, expected]);
  }
});

Deno.test("classifyQwen() keeps the provider's wait and marks a per-day quota daily", async () => {
  const rate = await classOf("error_rate_limit");
  assertEquals(rate.retryAfterMs, 20_000);
  const daily = await classOf("error_quota_daily");
  assertEquals(daily.daily, true);
  assertEquals((await classOf("error_quota")).daily, undefined);
  // qwen's own fast failure of a quota that says when it resets: a per-day quota.
  const reset = await classOf("error_quota_reset");
  assertEquals([reset.daily, /^Quota exhausted: /.test(reset.message)], [true, true]);
  assertEquals((await classOf("error_model_not_found")).message.startsWith("404 "), true);
});

Deno.test("classifyQwen() gives stop and timeout before anything the stream says", async () => {
  const { events, end } = await recorded("read_answer");
  assertEquals(classifyQwen({ ...end, stopped: true }, events).class, "stopped");
  assertEquals(classifyQwen({ ...end, timedOut: true }, events).class, "timeout");
  assertEquals(classifyQwen({ ...end, code: 1 }, []).class, "failed");
});
