/**
 * An audit run keeps its own verdict: the audit's record (not only the audited run's) says what
 * it found, read from its reply when it ended, so a face that shows the audit run alone (the
 * dashboard's card) can say AGREE/PARTLY/DISAGREE and list the disputed claims. A reply without
 * a clean verdict leaves the audit run without one.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../../src/engine/mod.ts";
import { loadRecord } from "../../../src/store/runs.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import type { FakeStep } from "../../support/fake_backend.ts";
import { engineWorld } from "../../support/engine_world.ts";
import { tempRepo } from "../../support/temp.ts";

function script(spec: RunSpec): FakeStep[] {
  if (spec.prompt.includes("You are auditing an answer")) {
    const reply = spec.prompt.includes("muddled")
      ? "I think it is fine, mostly."
      : "Checked.\n\nAUDIT: DISAGREE\nDISPUTED:\n- app.txt:1 — it says 41, not 42";
    return [{ answer: reply }];
  }
  return [{
    answer: spec.prompt.includes("muddled") ? "muddled: app.txt:1" : "app.txt:1 says 42.",
  }];
}

Deno.test("an audit run's record keeps its verdict and disputed claims; a reply without one keeps none", async () => {
  await using t = await engineWorld(await tempRepo({ "app.txt": "41\n" }), script);
  const engine = createEngine(t.sys, { backends: () => t.backend });
  const run = await engine.run({ task: "What does app.txt say?", worker: "opencode:fake/a" });
  const outcome = await engine.audit({ run: run.id, worker: "opencode:fake/b" });
  const audit = await loadRecord(t.paths, outcome.audit);
  assert.deepEqual(audit.auditOf, {
    run: run.id,
    kind: "audit",
    fix: false,
    verdict: "DISAGREE",
    disputed: ["app.txt:1 — it says 41, not 42"],
  });
  // The audited run has the same verdict.
  assert.equal((await engine.get(run.id)).audit?.verdict, "DISAGREE");

  const muddled = await engine.run({ task: "Is it muddled?", worker: "opencode:fake/a" });
  const failed = await engine.audit({ run: muddled.id, worker: "opencode:fake/b" });
  const record = await loadRecord(t.paths, failed.audit);
  assert.equal(record.auditOf?.verdict, undefined);
  assert.equal(record.auditOf?.disputed, undefined);
  assert.equal((await engine.get(muddled.id)).audit?.state, "failed");
});
