/**
 * Stalled runs: a running run whose worker sent no event for its stall time (the config's
 * `stallAfter`) reads as `stalled (no event for 2m)`, derived from its record when it is read
 * (engine/core/stall.ts), and a subscriber is told once per silence (the feed's `onStall`). The
 * worker is never stopped for it. Engine runs of the fake worker on a fake clock.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PitroomEvent, Stall } from "../../src/engine/mod.ts";
import { stallOf } from "../../src/engine/present.ts";
import { stallText } from "../../src/engine/core/stall.ts";
import { StallChecks } from "../../src/engine/follow/feed_stall.ts";
import { emptyProgress, RECORD_SCHEMA, type RunRecord } from "../../src/store/record.ts";
import { FakeClock } from "../support/clock.ts";
import { engineWorld } from "../support/engine_world.ts";
import { tempDir, tempRepo, waitFor } from "../support/temp.ts";

const T0 = Date.UTC(2026, 10, 30, 12);
const MIN = 60_000;

function running(fields: Partial<RunRecord> = {}): RunRecord {
  return {
    schemaVersion: RECORD_SCHEMA,
    id: "20261130-120000-abcd",
    state: "running",
    mode: "read",
    task: "q",
    cwd: "/tmp",
    chain: [{ worker: "opencode" }],
    web: false,
    timeoutMs: 60 * MIN,
    createdAt: T0,
    startedAt: T0,
    attempts: [{ worker: "opencode", startedAt: T0 }],
    progress: emptyProgress(),
    ...fields,
  };
}

Deno.test("stallOf() counts a silence from the worker's latest event or its attempt's start", () => {
  assert.equal(stallOf(running(), T0 + 10 * MIN - 1), null);
  assert.deepEqual(stallOf(running(), T0 + 10 * MIN), {
    since: T0,
    quietMs: 10 * MIN,
    text: "stalled (no event for 10m)",
  });
  const moved = running({ progress: { ...emptyProgress(), at: T0 + 5 * MIN } });
  assert.equal(stallOf(moved, T0 + 14 * MIN), null);
  assert.equal(stallOf(moved, T0 + 17 * MIN)?.text, "stalled (no event for 12m)");
  // An event a follower read already counts though the record does not carry it yet.
  assert.equal(stallOf(moved, T0 + 17 * MIN, T0 + 16 * MIN), null);
  // A second attempt starts the count again.
  const second = running({
    attempts: [
      { worker: "opencode", startedAt: T0, endedAt: T0 + MIN },
      { worker: "codex", startedAt: T0 + 20 * MIN },
    ],
  });
  assert.equal(stallOf(second, T0 + 29 * MIN), null);
  assert.equal(stallOf(second, T0 + 31 * MIN)?.since, T0 + 20 * MIN);
});

Deno.test("stallOf() is null without a worker going: queued, between attempts or verifying, ended", () => {
  const late = T0 + 99 * MIN;
  assert.equal(stallOf(running({ state: "queued", attempts: [] }), late), null);
  assert.equal(stallOf(running({ attempts: [] }), late), null);
  const verifying = running({ attempts: [{ worker: "opencode", startedAt: T0, endedAt: T0 }] });
  assert.equal(stallOf(verifying, late), null);
  for (const state of ["done", "problem", "lost"] as const) {
    assert.equal(stallOf(running({ state }), late), null, state);
  }
});

Deno.test("stallOf() takes the stall time frozen in the record (the config's stallAfter)", () => {
  const record = running({
    settings: { maxParallel: 20, limits: {}, stallAfterMs: 90_000 },
  });
  assert.equal(stallOf(record, T0 + 89_999), null);
  assert.equal(stallOf(record, T0 + 90_000)?.text, "stalled (no event for 1m)");
  assert.equal(stallText(42_500), "stalled (no event for 42s)");
  assert.equal(stallText(65 * MIN), "stalled (no event for 1h05m)");
});

Deno.test("a silent worker is told stalled once per silence and read as stalled; it is never stopped", async () => {
  const clock = new FakeClock(T0);
  await using gates = await tempDir("pitroom-gates-");
  const gate = (name: string) => join(gates.path, name);
  await using t = await engineWorld(
    await tempRepo({ "a.txt": "one\n" }),
    () => [
      { tool: "read", target: "a.txt" },
      { waitFile: gate("one") },
      { step: true },
      { waitFile: gate("two") },
      { answer: "It says one" },
    ],
    { clock, config: { stallAfter: "2m" } },
  );
  const seen: PitroomEvent[] = [];
  const done = t.engine.run({ task: "Read a.txt", mode: "read", worker: "opencode" }, {
    onEvent: (ev) => seen.push(ev),
  });
  await waitFor(() => seen.some((e) => e.type === "worker.tool_call"), {
    timeoutMs: 20_000,
    what: "the worker's first tool call",
  });
  const id = (await t.engine.list())[0]!.id;
  const stalls: Stall[] = [];
  await using _sub = t.engine.subscribe({ runs: [id] }, () => {}, {
    onStall: (run, stall) => {
      assert.equal(run, id);
      stalls.push(stall);
    },
  });
  await _sub.ready;

  await clock.advance(2 * MIN - 1);
  assert.equal(stalls.length, 0);
  assert.equal(stallOf(await t.engine.get(id), clock.now()), null);
  await clock.advance(1);
  await waitFor(() => stalls.length === 1, { timeoutMs: 10_000, what: "the stall to be told" });
  assert.deepEqual(stalls[0], { since: T0, quietMs: 2 * MIN, text: "stalled (no event for 2m)" });
  // Read when it is asked for: the record says nothing of it and is not written for it.
  const file = join(t.paths.run(id).dir, "run.json");
  const before = await Deno.readTextFile(file);
  await clock.advance(MIN);
  assert.equal(stallOf(await t.engine.get(id), clock.now())?.text, "stalled (no event for 3m)");
  assert.equal(
    stallOf((await t.engine.list())[0]!, clock.now())?.text,
    "stalled (no event for 3m)",
  );
  assert.equal(await Deno.readTextFile(file), before);
  assert.equal(stalls.length, 1, "one silence is told once");

  // The worker moves again: the stall ends, and the next silence is told from its new event.
  const steps = seen.filter((e) => e.type === "worker.step").length;
  await Deno.writeTextFile(gate("one"), "");
  await waitFor(() => seen.filter((e) => e.type === "worker.step").length > steps, {
    timeoutMs: 20_000,
    what: "the worker's next step",
  });
  const moved = clock.now();
  assert.equal(stallOf(await t.engine.get(id), clock.now()), null);
  await clock.advance(2 * MIN);
  await waitFor(() => stalls.length === 2, { timeoutMs: 10_000, what: "the second stall" });
  assert.equal(stalls[1]?.since, moved);

  await Deno.writeTextFile(gate("two"), "");
  const record = await done;
  assert.equal(record.state, "done");
  assert.equal(record.answer, "It says one");
  assert.equal(stallOf(record, clock.now() + 99 * MIN), null);
});

Deno.test("StallChecks: a queued run's check comes when its worker may stall, and a stall is told once per silence", async () => {
  const clock = new FakeClock(T0);
  const due: string[] = [];
  const checks = new StallChecks(clock, (id) => due.push(id));
  const queued = running({ state: "queued", attempts: [] });
  checks.join(queued);
  await clock.advance(10 * MIN);
  assert.deepEqual(due, [queued.id]);
  // Still queued: no stall, the check is armed again for a silence counted from now.
  assert.equal(checks.check(queued), null);
  // It starts a minute later: the check armed for 10 minutes after the last one finds it
  // going, and comes again 10 minutes after its start.
  await clock.advance(MIN);
  checks.seen(queued.id, clock.now());
  const started = running({ attempts: [{ worker: "opencode", startedAt: clock.now() }] });
  await clock.advance(9 * MIN);
  assert.equal(due.length, 2);
  assert.equal(checks.check(started), null);
  await clock.advance(MIN - 1);
  assert.equal(due.length, 2);
  await clock.advance(1);
  assert.equal(due.length, 3);
  assert.equal(checks.check(started)?.text, "stalled (no event for 10m)");
  assert.equal(checks.check(started), null, "one silence is told once");
  assert.equal(clock.pending, 0, "a stalled run waits for its next event");
  checks.seen(queued.id, clock.now());
  assert.equal(clock.pending, 1);
  checks.close();
  assert.equal(clock.pending, 0);
});
