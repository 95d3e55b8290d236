import assert from "node:assert/strict";
import { statePaths } from "../../src/store/paths.ts";
import { readRecord } from "../../src/store/runs.ts";
import { engineWorld } from "../support/engine_world.ts";
import { pitroom } from "../support/pitroom.ts";
import { tempRepo } from "../support/temp.ts";

Deno.test("a finished run carries its receipt in run.json, in show and in show --json", async () => {
  await using t = await engineWorld(
    await tempRepo({ "a.txt": "one\n" }),
    () => [{ tool: "read", target: "a.txt" }, { answer: "It says one" }],
    { config: { primary: "opus" } },
  );
  const state = { path: t.sys.stateDir }, repo = t.repo, configPath = t.sys.configPath;
  const record = await t.engine.run({
    task: "What does a.txt say?",
    mode: "read",
    worker: "opencode:opencode/space-bunny-free",
    timeoutMs: 30_000,
  });
  assert.equal(record.state, "done");

  const onDisk = await readRecord(statePaths(state.path), record.id);
  const receipt = onDisk?.receipt;
  assert.ok(receipt, "run.json has a receipt");
  assert.deepEqual(receipt.tokens, record.progress.tokens);
  assert.equal(receipt.primary, "opus");
  assert.deepEqual([receipt.workerCost, receipt.workerCostSource], [0, "free"]);
  assert.equal(receipt.model, "opencode/space-bunny-free");
  assert.equal(receipt.returnedTokens, Math.ceil((360 + "It says one".length) / 4));
  assert.equal(receipt.saved, receipt.primaryCost);

  const env = { PITROOM_STATE_DIR: state.path, PITROOM_CONFIG: configPath, HOME: state.path };
  const shown = await pitroom(["show", record.id], { env, cwd: repo.path });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /\nreceipt {2}\d[\d,]* tokens burned · ~93 returned to you/);
  assert.match(shown.stdout, /\ncost {5}worker \$0 \(free model\) · Claude Opus ~\$/);
  assert.match(shown.stdout, /\nsaved {4}~\$[\d.]+ vs Claude Opus \(estimates: list prices of /);
  const json = await pitroom(["show", record.id, "--json"], { env, cwd: repo.path });
  assert.deepEqual(JSON.parse(json.stdout).receipt, receipt);
});
