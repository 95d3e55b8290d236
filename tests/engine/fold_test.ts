import assert from "node:assert/strict";
import { event } from "../../src/events/mod.ts";
import { schemas } from "../../src/engine/mod.ts";
import { describeWatchLines, LiveFold, viewOf } from "../../src/engine/present.ts";
import { isWatchLine, WATCH_LINES } from "../../src/engine/follow/watch_lines.ts";
import type { RunRecord } from "../../src/store/record.ts";

const { parseRequest, runRequestJsonSchema } = await schemas();
const ID = "20260930-102812-a65d";

function record(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    schemaVersion: 1,
    id: ID,
    state: "running",
    mode: "read",
    task: "Where does Pitroom enforce the maxParallel queue?",
    cwd: "/repo",
    chain: [{ worker: "opencode" }],
    web: false,
    timeoutMs: 60_000,
    createdAt: 1_000,
    startedAt: 1_000,
    attempts: [],
    progress: { steps: 0, tools: 0, tokens: { input: 0, output: 0, cached: 0, reasoning: 0 } },
    ...overrides,
  };
}

Deno.test("LiveFold speaks the seed's watch lines, `event` first", () => {
  const fold = new LiveFold();
  fold.add(record());
  const started = fold.apply(
    ID,
    event("run.started", 1_000, { run: ID, worker: "opencode", mode: "read", attempt: 1 }),
  );
  assert.equal(
    JSON.stringify(started),
    `{"event":"started","run":"${ID}","mode":"read","task":"Where does Pitroom enforce the maxParallel queue?"}`,
  );
  fold.apply(ID, event("worker.step", 1_100, {}));
  const progress = fold.apply(
    ID,
    event("worker.tool_call", 1_200, {
      tool: "grep",
      kind: "search",
      target: "SIGINT",
      status: "ok",
    }),
  );
  assert.equal(
    JSON.stringify(progress),
    `{"event":"progress","run":"${ID}","steps":1,"tools":1,"last":"search SIGINT"}`,
  );
  fold.apply(
    ID,
    event("run.progress", 1_300, {
      run: ID,
      steps: 1,
      tools: 1,
      tokens: { input: 10, output: 2, cached: 0, reasoning: 0 },
    }),
  );
  fold.apply(
    ID,
    event("run.fallback", 1_400, {
      run: ID,
      from: "opencode",
      to: "codex",
      reason: "rate_limited",
      message: "429",
    }),
  );
  const view = fold.get(ID)!;
  assert.deepEqual(view.tokens, { input: 10, output: 2, cached: 0, reasoning: 0 });
  assert.deepEqual(view.fallbacks, [{ from: "opencode", to: "codex", reason: "rate_limited" }]);
  const done = fold.end(
    record({
      state: "done",
      outcome: "ok",
      exit: 0,
      endedAt: 22_000,
      answer: "The shim resolves aliases in a loop.",
      attempts: [{ worker: "opencode", startedAt: 1_000 }],
    }),
    30_000,
  );
  assert.equal(
    JSON.stringify(done),
    `{"event":"done","run":"${ID}","time":"21s","worker":"opencode (default model)","summary":"The shim resolves aliases in a loop."}`,
  );
  assert.equal(
    JSON.stringify(fold.allDone()),
    '{"event":"all-done","runs":1,"ok":1,"failed":0}',
  );
  for (const line of [started, progress, done, fold.allDone()]) assert.ok(isWatchLine(line));
});

Deno.test("LiveFold ends a failed run with a problem line naming its outcome and exit", () => {
  const fold = new LiveFold();
  const line = fold.end(
    record({ state: "problem", outcome: "timeout", exit: 4, endedAt: 5_000, message: "ran out" }),
    9_000,
  );
  assert.deepEqual(line, {
    event: "problem",
    run: ID,
    time: "4s",
    worker: "opencode (default model)",
    summary: "ran out",
    outcome: "timeout",
    exit: 4,
  });
  assert.deepEqual(fold.allDone(), { event: "all-done", runs: 1, ok: 0, failed: 1 });
});

Deno.test("the watch lines keep their names and fields (a rename must show up here)", () => {
  assert.deepEqual(Object.keys(WATCH_LINES), [
    "queued",
    "started",
    "progress",
    "fallback",
    "parked",
    "stalled",
    "done",
    "problem",
    "changed",
    "all-done",
  ]);
  assert.deepEqual(describeWatchLines().done, {
    run: "string",
    time: "string",
    worker: "string",
    summary: "string",
    refs: "string?",
    changes: "string[]?",
  });
  assert.equal(isWatchLine({ event: "done", run: ID }), false);
  assert.equal(isWatchLine({ type: "done" }), false);
});

Deno.test("viewOf() gives status the fold's view of a record: steps, last action, fallbacks", () => {
  const view = viewOf(record({
    progress: {
      steps: 3,
      tools: 4,
      last: "read src/a.ts",
      tokens: { input: 1, output: 2, cached: 0, reasoning: 0 },
    },
    attempts: [
      { worker: "codex", startedAt: 1_000, outcome: "quota" },
      { worker: "opencode", startedAt: 2_000 },
    ],
  }));
  assert.equal(view.worker, "opencode (default model)");
  assert.equal(view.last, "read src/a.ts");
  assert.deepEqual(view.fallbacks, [{
    from: "codex (default model)",
    to: "opencode (default model)",
    reason: "quota",
  }]);
});

Deno.test("RunRequest: one schema gives the check and the JSON Schema MCP publishes", () => {
  assert.deepEqual(parseRequest({ task: "x", mode: "isolate", files: ["a.md"] }), {
    task: "x",
    mode: "isolate",
    files: ["a.md"],
  });
  assert.throws(() => parseRequest({ task: "x", mode: "fast" }), /Invalid run request: mode/);
  assert.throws(() => parseRequest({ task: 1 }), /Invalid run request: task/);
  const schema = runRequestJsonSchema() as { properties: Record<string, { type?: string }> };
  assert.equal(schema.properties.task?.type, "string");
  assert.equal(schema.properties.files?.type, "array");
  assert.ok("continue" in schema.properties && "background" in schema.properties);
});

Deno.test("LiveFold marks a run stalled with a `stalled` line, keeps it in a snapshot, and any event ends it", () => {
  const fold = new LiveFold();
  fold.add(record());
  fold.apply(
    ID,
    event("run.started", 1_000, { run: ID, worker: "opencode", mode: "read", attempt: 1 }),
  );
  const stall = { since: 1_000, quietMs: 600_000, text: "stalled (no event for 10m)" };
  const line = fold.stall(ID, stall);
  assert.equal(
    JSON.stringify(line),
    `{"event":"stalled","run":"${ID}","since":1000,"text":"stalled (no event for 10m)"}`,
  );
  assert.ok(isWatchLine(line));
  assert.equal(fold.get(ID)?.stalled?.text, "stalled (no event for 10m)");
  assert.deepEqual(fold.snapshot().map((l) => l.event), ["started", "stalled"]);
  // Its next event, whatever it is, says it moved on.
  assert.deepEqual(fold.apply(ID, event("worker.text", 601_000, { text: "thinking" })), {
    event: "progress",
    run: ID,
    steps: 0,
    tools: 0,
  });
  assert.equal(fold.get(ID)?.stalled, undefined);
  assert.equal(fold.apply(ID, event("worker.text", 601_001, { text: "more" })), null);
  fold.apply(ID, event("worker.step", 601_002, {}));
  assert.deepEqual(fold.snapshot().map((l) => l.event), ["started", "progress"]);
  // An ended run is not marked.
  fold.end(record({ state: "done", outcome: "ok", exit: 0, endedAt: 700_000 }), 700_000);
  assert.equal(fold.stall(ID, stall), null);
});

Deno.test("LiveFold ends a run from its final event when its record cannot be read", () => {
  const fold = new LiveFold();
  fold.add(record());
  fold.apply(
    ID,
    event("run.started", 1_000, { run: ID, worker: "opencode", mode: "read", attempt: 1 }),
  );
  const finished = event("run.finished", 4_000, {
    run: ID,
    state: "problem",
    outcome: "rate_limited",
    exit: 1,
    message: "429",
  });
  assert.deepEqual(fold.endFromEvent(ID, finished), {
    event: "problem",
    run: ID,
    time: "3s",
    worker: "opencode (default model)",
    summary: "429",
    outcome: "rate_limited",
    exit: 1,
  });
  assert.equal(fold.get(ID)?.end?.event, "problem");
  // The record, once read, does not end it twice; an unknown run is no line.
  assert.equal(fold.endFromEvent(ID, finished)?.event, "problem");
  assert.equal(fold.endFromEvent("20260930-102812-ffff", finished), null);
  const other = new LiveFold();
  other.add(record());
  const lost = event("run.lost", 2_000, { run: ID, reason: "supervisor gone" });
  assert.deepEqual(
    [other.endFromEvent(ID, lost)?.event, other.get(ID)?.outcome, other.get(ID)?.exit],
    ["problem", "lost", 1],
  );
});
