import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { fakeBackend } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

Deno.test("settings are resolved once, when the run is created: a config edited later changes nothing", async () => {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n" });
  const configPath = join(state.path, "config.json");
  await Deno.writeTextFile(
    configPath,
    JSON.stringify({
      primary: "opus",
      maxParallel: 3,
      limits: { opencode: 2 },
      stallAfter: "3m",
    }),
  );
  const sys = testSys({
    stateDir: state.path,
    cwd: repo.path,
    env: { PITROOM_CONFIG: configPath },
  });
  const backend = fakeBackend(() => [{ answer: "It says one" }]);
  const engine = createEngine(sys, { backends: () => backend });
  const final = await engine.run({ task: "What does a.txt say?", worker: "opencode" }, {
    onEvent: (ev) => {
      // The config changes while the run runs; the run keeps what it was created with.
      if (ev.type === "run.started") {
        Deno.writeTextFileSync(
          configPath,
          JSON.stringify({ primary: "gpt-5.5", maxParallel: 1 }),
        );
      }
    },
  });
  assert.equal(final.state, "done", final.message);
  assert.deepEqual(final.settings?.maxParallel, 3);
  assert.deepEqual(final.settings?.limits, { opencode: 2 });
  assert.equal(final.settings?.config?.primary, "opus");
  assert.equal(final.settings?.stallAfterMs, 180_000);
  assert.equal(final.receipt?.primary, "opus");
});

Deno.test("the sandbox and notify settings are frozen too: a config edited while the run runs does not reach its verify command", async () => {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n" });
  const configPath = join(state.path, "config.json");
  await Deno.writeTextFile(
    configPath,
    JSON.stringify({ sandbox: "off", notify: true, notifyCommand: "true" }),
  );
  const sys = testSys({
    stateDir: state.path,
    cwd: repo.path,
    env: { PITROOM_CONFIG: configPath },
  });
  // The worker itself edits the config (no sandbox holds it) before its verify command runs.
  const edit = `printf '%s' '${JSON.stringify({ sandbox: "required" })}' > '${configPath}'`;
  const backend = fakeBackend(() => [{ run: edit, untold: true }, { answer: "Done" }]);
  const engine = createEngine(sys, { backends: () => backend });
  const final = await engine.run({
    task: "Change the config",
    worker: "opencode",
    mode: "write",
    verify: "true",
  });
  assert.equal(final.state, "done", final.message);
  assert.equal(final.settings?.sandbox, "off");
  assert.deepEqual(final.settings?.notify, { on: true, command: "true" });
  // Read again, "required" would have put the verify command in the sandbox.
  assert.ok(
    final.notes?.some((n) => n.startsWith("The verify command ran without a sandbox")),
    JSON.stringify(final.notes),
  );
});
