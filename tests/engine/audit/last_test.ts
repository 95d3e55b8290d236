/** `last`, as the front door resolves it: audits and correction rounds are never `last`. */
import assert from "node:assert/strict";
import { createEngine } from "../../../src/engine/mod.ts";
import { statePaths } from "../../../src/store/paths.ts";
import { UsageError } from "../../../src/sys/errors.ts";
import { testSys } from "../../support/sys.ts";
import { tempDir } from "../../support/temp.ts";
import { FakeClock } from "../../support/clock.ts";
import { placeLiveRun } from "../../support/live_run.ts";

Deno.test("`last` is the newest run that is not an audit or a correction round", async () => {
  await using state = await tempDir("pitroom-state-");
  const sys = testSys({ stateDir: state.path, cwd: state.path });
  const engine = createEngine(sys);
  const paths = statePaths(state.path);
  const at = { cwd: state.path, now: Date.now() };
  const only = await placeLiveRun(paths, { ...at, auditOf: { run: "x", kind: "audit" } });
  await assert.rejects(() => engine.get("last"), UsageError);
  const run = await placeLiveRun(paths, at);
  await placeLiveRun(paths, { ...at, auditOf: { run: run.id, kind: "audit" } });
  await placeLiveRun(paths, { ...at, auditOf: { run: run.id, kind: "fix" } });
  assert.equal((await engine.get("last")).id, run.id);
  // An audit is still found by its own id.
  assert.equal((await engine.get(only.id)).id, only.id);
});

Deno.test("`last` is the run made last, also among runs made in the same second", async () => {
  await using state = await tempDir("pitroom-state-");
  const clock = new FakeClock(Date.parse("2026-01-01T12:00:00.100Z"));
  const engine = createEngine(testSys({ stateDir: state.path, cwd: state.path, clock }));
  const paths = statePaths(state.path);
  // Ids sort by their second, then by their random part: made last, this one sorts first.
  const first = await placeLiveRun(paths, { cwd: state.path, now: clock.now(), hex: "ffff" });
  clock.advance(500);
  const second = await placeLiveRun(paths, { cwd: state.path, now: clock.now(), hex: "0000" });
  assert.ok(second.id < first.id && second.id.slice(0, 15) === first.id.slice(0, 15));
  assert.equal((await engine.get("last")).id, second.id);
});
