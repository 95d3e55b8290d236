import assert from "node:assert/strict";
import { createRun } from "../../../src/engine/create.ts";
import { resolveRun } from "../../../src/engine/select.ts";
import { scopeOf } from "../../../src/engine/scope.ts";
import { UsageError } from "../../../src/sys/errors.ts";
import { testSys } from "../../support/sys.ts";
import { tempDir } from "../../support/temp.ts";

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
