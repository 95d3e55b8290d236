import assert from "node:assert/strict";
import { describeEvents, event, EVENTS, isEvent, parseEventLine } from "../../src/events/mod.ts";

Deno.test("isEvent() accepts a well-formed event and rejects a wrong field type", () => {
  const ok = event("worker.tool_call", 1, {
    tool: "read",
    kind: "read",
    target: "a.ts",
    status: "ok",
  });
  assert.equal(isEvent(ok), true);
  assert.equal(isEvent({ ...ok, kind: "teleport" }), false);
  assert.equal(isEvent({ ...ok, time: "soon" }), false);
  assert.equal(isEvent({ type: "worker.nope", time: 1 }), false);
});

Deno.test("parseEventLine() returns null for non-JSON and for JSON that is not an event", () => {
  assert.equal(parseEventLine("{not json"), null);
  assert.equal(parseEventLine('{"type":"run.queued","time":1}'), null);
  assert.deepEqual(parseEventLine('{"type":"run.queued","time":1,"run":"x","position":2}'), {
    type: "run.queued",
    time: 1,
    run: "x",
    position: 2,
  });
});

Deno.test("optional fields may be absent but not of the wrong type", () => {
  assert.equal(isEvent({ type: "worker.error", time: 1, message: "boom" }), true);
  assert.equal(isEvent({ type: "worker.error", time: 1, message: "boom", status: "429" }), false);
});

Deno.test("describeEvents() documents every event type and marks optional fields", () => {
  const docs = describeEvents();
  assert.deepEqual(Object.keys(docs).sort(), Object.keys(EVENTS).sort());
  assert.equal(docs["worker.error"]?.status, "number?");
  assert.equal(
    docs["run.progress"]?.tokens,
    "{ input: number >= 0, output: number >= 0, cached: number >= 0, reasoning: number >= 0 }",
  );
  assert.equal(docs["run.progress"]?.denied, "number >= 0?");
});

Deno.test("token counts, costs and waits are finite and never negative", () => {
  const tokens = { type: "worker.tokens", time: 1, input: 1, output: 2, cached: 0, reasoning: 0 };
  assert.equal(isEvent(tokens), true);
  for (const bad of [-1, Infinity, NaN]) {
    assert.equal(isEvent({ ...tokens, input: bad }), false, `input ${bad}`);
    assert.equal(isEvent({ ...tokens, cost: bad }), false, `cost ${bad}`);
    assert.equal(
      isEvent({ type: "worker.error", time: 1, message: "x", retryAfterMs: bad }),
      false,
      `retryAfterMs ${bad}`,
    );
  }
});

Deno.test("the event registry keeps its names (a rename must show up here)", () => {
  assert.deepEqual(Object.keys(EVENTS), [
    "worker.session",
    "worker.step",
    "worker.text",
    "worker.reasoning",
    "worker.tool_call",
    "worker.denied",
    "worker.tokens",
    "worker.answer",
    "worker.error",
    "worker.unknown",
    "run.queued",
    "run.started",
    "run.progress",
    "run.skipped",
    "run.parked",
    "run.fallback",
    "run.finished",
    "run.lost",
    "run.changed",
  ]);
});

Deno.test("parseEventLine() refuses a type every object has (constructor, __proto__, toString)", () => {
  for (const type of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
    assert.equal(parseEventLine(JSON.stringify({ type, time: 1 })), null, type);
    assert.equal(isEvent({ type, time: 1 }), false, type);
  }
});
