/**
 * The run record's schema (store/record.ts) is the one description of a run, behind the report,
 * `show --json`, MCP and the dashboard: every field the engine writes is named in it at its type,
 * at every depth. A parse would throw on a field of another type and drop a key the schema does
 * not name, so a record that parses back whole is described whole.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { runRecordSchema } from "../../src/store/record_schema.ts";
import { fakeBackend } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

Deno.test("the record schema names every field of a write run's and an applied isolate run's record", async () => {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n", ".gitignore": "deps/\n" });
  await Deno.mkdir(join(repo.path, "deps"));
  const configPath = join(state.path, "config.json");
  await Deno.writeTextFile(
    configPath,
    JSON.stringify({
      primary: "opus",
      models: { opencode: "fake/a" },
      workerPrices: { "fake/a": { input: 1, output: 2 } },
      limits: { opencode: 2 },
      audit: 0,
    }),
  );
  const sys = testSys({
    stateDir: state.path,
    cwd: repo.path,
    env: { PITROOM_CONFIG: configPath },
  });
  const backend = fakeBackend((spec) => [
    { tool: "read", target: "a.txt" },
    spec.mode === "isolate"
      ? { writeFile: "b.txt", content: "bee\n" }
      : { editFile: "a.txt", old: "one", new: "two" },
    { answer: "Changed the tree." },
  ]);
  const engine = createEngine(sys, { backends: () => backend });
  const common = { task: "Change a.txt", worker: "opencode", verify: "true" } as const;
  const write = await engine.run({ ...common, mode: "write", caps: { maxSteps: 50 } });
  assert.equal(write.outcome, "ok", write.message);
  const isolate = await engine.run({ ...common, mode: "isolate", link: ["deps"] });
  assert.equal(isolate.outcome, "ok", isolate.message);
  await engine.apply(isolate.id);
  for (const report of [await engine.report(write.id), await engine.report(isolate.id)]) {
    assert.ok(report.changes?.files.length && report.verify && report.receipt && report.settings);
    assert.deepEqual(runRecordSchema().parse(report), report);
  }
  assert.ok((await engine.report(isolate.id)).isolation?.applied);
});
