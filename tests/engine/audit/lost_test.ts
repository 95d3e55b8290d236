import assert from "node:assert/strict";
import { createEngine } from "../../../src/engine/mod.ts";
import { statePaths } from "../../../src/store/paths.ts";
import { loadRecord, writeRecord } from "../../../src/store/runs.ts";
import { testSys } from "../../support/sys.ts";
import { placeLiveRun } from "../../support/live_run.ts";
import { tempDir } from "../../support/temp.ts";

Deno.test("an audit whose run was lost ends as a failed audit on the audited run, not running for ever", async () => {
  await using state = await tempDir("pitroom-state-");
  const sys = testSys({ stateDir: state.path });
  const paths = statePaths(state.path);
  const at = { cwd: state.path, now: Date.now() };
  const audited = await placeLiveRun(paths, at);
  const audit = await placeLiveRun(paths, {
    ...at,
    chain: [{ worker: "codex" }],
    auditOf: { run: audited.id, kind: "audit" },
  });
  Object.assign(audited, {
    state: "done",
    outcome: "ok",
    answer: "a",
    audit: {
      run: audit.id,
      worker: "codex",
      state: "running",
      sampled: true,
      disputed: [],
      startedAt: 0,
    },
  });
  await writeRecord(paths, audited);
  // The audit run's supervisor took it and died: nobody holds its lock.
  await writeRecord(paths, { ...audit, state: "running", supervised: true });
  const seen = await createEngine(sys).get(audited.id);
  assert.equal(seen.audit?.state, "failed");
  assert.match(seen.audit?.message ?? "", /the audit run ended failed: The run's supervisor died/);
  assert.equal((await loadRecord(paths, audit.id)).state, "lost");
});
