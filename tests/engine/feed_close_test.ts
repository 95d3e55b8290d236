/**
 * Closing a subscription leaves no timer behind, even when the close comes while the feed's
 * first pass is still checking a run: a just-created run (no supervisor yet) gets a start-up
 * grace timer from that check, and a close that had already cancelled the timers must not
 * find a new one set after it. The fake clock counts the timers still waiting.
 */
import assert from "node:assert/strict";
import { subscribe } from "../../src/engine/follow/feed.ts";
import { statePaths } from "../../src/store/paths.ts";
import { FakeClock } from "../support/clock.ts";
import { placeLiveRun } from "../support/live_run.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("a feed closed during its first pass leaves no start-up grace timer waiting", async () => {
  await using state = await tempDir("pitroom-state-");
  const clock = new FakeClock();
  const sys = testSys({ stateDir: state.path, clock });
  const paths = statePaths(state.path);
  const queued = await placeLiveRun(paths, { cwd: state.path, now: clock.now() });

  // Closed at once: the first pass runs after the close has begun.
  const early = subscribe(sys, { runs: [queued.id] }, () => undefined);
  await early.close();
  assert.equal(clock.pending, 0, "a timer outlived the close");

  // Closed after the first pass: the grace timer it set is cancelled.
  const late = subscribe(sys, { runs: [queued.id] }, () => undefined);
  await late.ready;
  assert.equal(clock.pending, 1, "the first pass sets the start-up grace");
  await late.close();
  assert.equal(clock.pending, 0, "a timer outlived the close");
});

Deno.test("a second close waits for the first's end: no caller is told closed while the feed works", async () => {
  await using state = await tempDir("pitroom-state-");
  const clock = new FakeClock();
  const sys = testSys({ stateDir: state.path, clock });
  const paths = statePaths(state.path);
  const queued = await placeLiveRun(paths, { cwd: state.path, now: clock.now() });
  // Closed twice at once, during the first pass (an MCP session's close asks again from within
  // itself): the second must not end before the first, whose work is still reading the state.
  const feed = subscribe(sys, { runs: [queued.id] }, () => undefined);
  let first = false;
  const closing = feed.close().then(() => (first = true));
  await feed.close();
  assert.ok(first, "the second close ended while the first was still closing");
  await closing;
});
