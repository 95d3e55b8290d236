import assert from "node:assert/strict";
import { createRun } from "../../../src/engine/request/create.ts";
import { resolveRun } from "../../../src/engine/runs/select.ts";
import { scopeOf } from "../../../src/engine/core/scope.ts";
import { UsageError } from "../../../src/sys/errors.ts";
import { testSys } from "../../support/sys.ts";
import { tempDir } from "../../support/temp.ts";
import { FakeClock } from "../../support/clock.ts";

Deno.test("`last` is the newest run that is not an audit or a correction round", async () => {
  await using state = await tempDir("pitroom-state-");
  const sys = testSys({ stateDir: state.path, cwd: state.path });
  const scope = await scopeOf(sys, ".");
  const spec = { task: "q", mode: "read" as const, cwd: state.path, chain: [], timeoutMs: 1000 };
  const only = await createRun(sys, { ...spec, auditOf: { run: "x", kind: "audit" } });
  await assert.rejects(() => resolveRun(sys, "last", scope), UsageError);
  const run = await createRun(sys, spec);
  await createRun(sys, { ...spec, auditOf: { run: run.id, kind: "audit" } });
  await createRun(sys, { ...spec, auditOf: { run: run.id, kind: "fix" } });
  assert.equal(await resolveRun(sys, "last", scope), run.id);
  // An audit is still found by its own id.
  assert.equal(await resolveRun(sys, only.id, scope), only.id);
});

Deno.test("`last` is the run made last, also among runs made in the same second", async () => {
  await using state = await tempDir("pitroom-state-");
  const clock = new FakeClock(Date.parse("2026-01-01T12:00:00.100Z"));
  const base = testSys({ stateDir: state.path, cwd: state.path, clock });
  const scope = await scopeOf(base, ".");
  const spec = { task: "q", mode: "read" as const, cwd: state.path, chain: [], timeoutMs: 1000 };
  // Ids sort by their second, then by their random part: made last, this one sorts first.
  const first = await createRun({ ...base, randomHex: () => "ffff" }, spec);
  clock.advance(500);
  const second = await createRun({ ...base, randomHex: () => "0000" }, spec);
  assert.ok(second.id < first.id && second.id.slice(0, 15) === first.id.slice(0, 15));
  assert.equal(await resolveRun(base, "last", scope), second.id);
});
