/**
 * `--park` (issue 30 item 7): a run whose whole chain is out of quota waits for the first target
 * to come back, within its timeout, instead of failing; the record and every view say
 * `parked until HH:MM` while it waits. Time is a fake clock: the wait ends when the test
 * advances it, never in real time.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../src/engine/mod.ts";
import { LiveFold, liveState, viewOf } from "../../src/engine/present.ts";
import { formatUntil } from "../../src/engine/core/cooldown.ts";
import { cooldownKey, putCooldown } from "../../src/store/cooldown.ts";
import { statePaths } from "../../src/store/paths.ts";
import { loadRecord } from "../../src/store/runs.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { FakeClock } from "../support/clock.ts";
import { exists } from "../../src/sys/fs.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo, waitFor } from "../support/temp.ts";

async function world(first: FakeStep[]) {
  const state = await tempDir("pitroom-state-");
  const repo = await tempRepo({ "a.txt": "one\n" });
  const clock = new FakeClock();
  const sys = testSys({ stateDir: state.path, cwd: repo.path, clock });
  let calls = 0;
  // The first attempt meets the limit; any later one answers.
  const backend = fakeBackend(() => calls++ === 0 ? first : [{ answer: "back again" }]);
  const engine = createEngine(sys, { backends: () => backend });
  const paths = statePaths(state.path);
  return {
    clock,
    engine,
    paths,
    state: state.path,
    attempts: () => calls,
    /** The run's record once it says it is parked. */
    async parked(): Promise<RunRecord> {
      let found: RunRecord | undefined;
      await waitFor(async () => {
        const ids = [];
        if (!(await exists(paths.runs))) return false;
        for await (const e of Deno.readDir(paths.runs)) ids.push(e.name);
        if (ids.length !== 1) return false;
        // The run's folder is made before its record is written.
        const record = await loadRecord(paths, ids[0]!).catch(() => null);
        if (record?.parked === undefined) return false;
        found = record;
        return true;
      }, { timeoutMs: 30_000, what: "the run to park" });
      return found!;
    },
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

Deno.test("a parking run whose only worker is rate-limited waits until its cooldown ends, says so, and runs again", async () => {
  await using w = await world([{ fail: "rate_limited", retryAfterMs: 300_000 }]);
  const start = w.clock.now();
  const running = w.engine.run({
    task: "t",
    worker: "opencode",
    timeoutMs: 3_600_000,
    park: true,
  });
  const parked = await w.parked();
  assert.equal(parked.state, "running");
  assert.equal(parked.park, true);
  assert.equal(parked.parked!.until, start + 300_000);
  const said = `parked until ${formatUntil(start + 300_000, start)}`;
  assert.equal(liveState(viewOf(parked), start), said);
  // A watch that joins now says it too, and the parked line comes from the event.
  const fold = new LiveFold();
  fold.add(parked);
  const line = fold.apply(parked.id, {
    type: "run.parked",
    time: start,
    run: parked.id,
    until: start + 300_000,
  });
  assert.deepEqual(line, { event: "parked", run: parked.id, until: start + 300_000 });
  assert.equal(liveState(fold.get(parked.id)!, start), said);
  assert.equal(w.attempts(), 1);
  await w.clock.advance(300_000);
  const record = await running;
  assert.equal(record.outcome, "ok", record.message);
  assert.equal(record.answer, "back again");
  assert.equal(record.attempts.length, 2);
  assert.equal(record.parked, undefined);
  assert.equal(liveState(viewOf(record), w.clock.now()), "done");
});

Deno.test("a parking run whose chain is all cooling waits for the first target to come back, without trying the last at once", async () => {
  await using w = await world([{ answer: "never" }]);
  const now = w.clock.now();
  for (const [target, until] of [["opencode", now + 600_000], ["codex", now + 120_000]] as const) {
    await putCooldown(w.paths, {
      target: cooldownKey(target, undefined),
      until,
      reason: "quota",
      message: "out of quota",
      run: "x",
      since: now,
    });
  }
  const running = w.engine.run({
    task: "t",
    worker: "opencode,codex",
    timeoutMs: 3_600_000,
    park: true,
  });
  const parked = await w.parked();
  assert.equal(parked.parked!.until, now + 120_000);
  assert.equal(w.attempts(), 0);
  assert.deepEqual(parked.skipped?.map((s) => s.worker), ["opencode", "codex"]);
  await w.clock.advance(120_000);
  const record = await running;
  assert.equal(record.outcome, "ok", record.message);
  // opencode still cools down: codex, the first back, ran.
  assert.deepEqual(record.attempts.map((a) => a.worker), ["codex"]);
  // Each cooldown is listed once, however many times the chain was walked.
  assert.deepEqual(record.skipped?.map((s) => s.worker), ["opencode", "codex"]);
});

Deno.test("a parking run does not wait past its timeout: it ends at once, naming when the chain comes back", async () => {
  await using w = await world([{ fail: "quota", retryAfterMs: 7_200_000 }]);
  const record = await w.engine.run({
    task: "t",
    worker: "opencode",
    timeoutMs: 600_000,
    park: true,
  });
  assert.equal(record.outcome, "quota");
  assert.match(record.message ?? "", /out of quota until .*after the run's timeout/);
  assert.equal(record.parked, undefined);
});

Deno.test("a parked run that is stopped ends stopped at once, and its events said it parked", async () => {
  await using w = await world([{ fail: "rate_limited", retryAfterMs: 300_000 }]);
  const stop = new AbortController();
  const events: string[] = [];
  const running = w.engine.run({
    task: "t",
    worker: "opencode",
    timeoutMs: 3_600_000,
    park: true,
  }, { signal: stop.signal, onEvent: (ev) => events.push(ev.type) });
  await w.parked();
  stop.abort();
  const record = await running;
  assert.equal(record.outcome, "stopped");
  assert.match(record.message ?? "", /parked until/);
  assert.ok(events.includes("run.parked"), events.join(" "));
});

Deno.test("without --park the last cooling target is still tried at once (unchanged)", async () => {
  await using w = await world([{ answer: "tried" }]);
  const now = w.clock.now();
  await putCooldown(w.paths, {
    target: cooldownKey("opencode", undefined),
    until: now + 600_000,
    reason: "rate_limited",
    message: "slow down",
    run: "x",
    since: now,
  });
  const record = await w.engine.run({ task: "t", worker: "opencode", timeoutMs: 600_000 });
  assert.equal(record.outcome, "ok");
  assert.equal(w.attempts(), 1);
});

Deno.test("a parking run whose only target is refused (not cooling) ends at once instead of waiting", async () => {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n" });
  const sys = testSys({ stateDir: state.path, cwd: repo.path, clock: new FakeClock() });
  const engine = createEngine(sys, {
    backends: () => {
      throw new Error("no such backend here");
    },
  });
  const record = await engine.run({
    task: "t",
    worker: "opencode",
    timeoutMs: 600_000,
    park: true,
  });
  assert.equal(record.outcome, "refused");
  assert.equal(record.parked, undefined);
});
