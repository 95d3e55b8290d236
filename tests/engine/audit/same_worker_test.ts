/**
 * An audit by another model of the answering worker, through the engine with a scripted worker:
 * opencode's fake/b audits an answer of opencode's fake/a, the report names who audited (worker
 * and model), and the correction round goes back to fake/a in its own session, never to the
 * auditor. The same worker and model is refused (exit 3) and leaves the run untouched.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../../src/engine/mod.ts";
import { statePaths } from "../../../src/store/paths.ts";
import { loadRecord } from "../../../src/store/runs.ts";
import { Exit, RefusedError } from "../../../src/sys/errors.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import type { FakeStep } from "../../support/fake_backend.ts";
import { engineWorld } from "../../support/engine_world.ts";
import { tempRepo } from "../../support/temp.ts";

function script(spec: RunSpec): FakeStep[] {
  if (spec.prompt.includes("You are auditing an answer")) {
    return [{ session: `ses_audit_${spec.model}` }, {
      answer: [
        `Checked by ${spec.model}.`,
        "",
        "AUDIT: PARTLY",
        "DISPUTED:",
        "- app.txt:1 — it says 41, not 42",
      ].join("\n"),
    }];
  }
  if (spec.sessionId !== undefined) {
    return [{ answer: `corrected by ${spec.model} in ${spec.sessionId}` }];
  }
  return [{ session: `ses_${spec.model}` }, { answer: "app.txt:1 says 42." }];
}

Deno.test("opencode:fake/b audits opencode:fake/a's answer; the correction round is fake/a's, in its session", async () => {
  await using t = await engineWorld(await tempRepo({ "app.txt": "41\n" }), script);
  const engine = createEngine(t.sys, { backends: () => t.backend });
  const run = await engine.run({ task: "What does app.txt say?", worker: "opencode:fake/a" });
  assert.equal(run.outcome, "ok");
  // The same worker and model: refused with one line, exit 3; nothing is written on the run.
  await assert.rejects(engine.audit({ run: run.id, worker: "opencode:fake/a" }), (error) => {
    assert.ok(error instanceof RefusedError);
    assert.equal(error.exit, Exit.refused);
    assert.match(error.message, /^opencode \(fake\/a\) cannot audit run ".+": it answered it/);
    return true;
  });
  assert.equal((await engine.get(run.id)).audit, undefined);

  const outcome = await engine.audit({ run: run.id, worker: "opencode:fake/b", fix: true });
  const audit = outcome.record.audit!;
  assert.equal(audit.state, "done");
  assert.equal(audit.verdict, "PARTLY");
  assert.deepEqual(audit.disputed, ["app.txt:1 — it says 41, not 42"]);
  // Who audited, on the record and in the report every interface prints.
  assert.deepEqual([audit.worker, audit.model], ["opencode", "fake/b"]);
  const report = await engine.report(run.id);
  assert.deepEqual([report.audit?.worker, report.audit?.model], ["opencode", "fake/b"]);
  const auditRun = await loadRecord(t.paths, outcome.audit);
  assert.deepEqual(auditRun.attempts.map((a) => [a.worker, a.model]), [["opencode", "fake/b"]]);
  // The correction round: the answerer's worker and model, in its own session.
  assert.equal(audit.fix?.state, "done", JSON.stringify(audit.fix));
  assert.equal(audit.fix?.answer?.trim(), "corrected by fake/a in ses_fake/a");
  const fix = await loadRecord(statePaths(t.sys.stateDir), audit.fix!.run!);
  assert.deepEqual(fix.attempts.map((a) => [a.worker, a.model]), [["opencode", "fake/a"]]);
  assert.equal(fix.continues?.sessionId, "ses_fake/a");
  assert.match(fix.task, /app\.txt:1 — it says 41, not 42/);
});
