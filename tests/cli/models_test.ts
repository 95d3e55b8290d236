import assert from "node:assert/strict";
import { renderModels } from "../../src/cli/models.ts";
import { collectModels, mergeModels } from "../../src/engine/setup/models.ts";
import { aggregateUsage } from "../../src/engine/setup/usage.ts";
import { pitroom } from "../support/pitroom.ts";
import { testSys } from "../support/sys.ts";
import {
  BARE_PATH,
  finishedRun,
  REAL_BACKENDS,
  settingsOf,
  tempHome,
  writeRuns,
} from "./_setup.ts";

const RUN_A = finishedRun("20260101-100000-aaaa", [
  {
    worker: "opencode",
    model: "fake/free",
    startedAt: 1_000,
    endedAt: 4_000,
    outcome: "rate_limited",
  },
  { worker: "codex", model: "gpt-5.5", startedAt: 4_000, endedAt: 10_000, outcome: "ok" },
], { input: 1_200, output: 300, cached: 50 });
const RUN_B = finishedRun("20260101-110000-bbbb", [
  { worker: "codex", model: "gpt-5.5", startedAt: 20_000, endedAt: 22_000, outcome: "ok" },
], { input: 800, output: 100 });
const RUN_C = finishedRun("20260101-120000-cccc", [
  { worker: "claude", startedAt: 30_000, endedAt: 31_000, outcome: "ok" },
], { input: 5, output: 5 });

Deno.test("aggregateUsage() counts attempts and time per model and gives tokens to the last attempt", () => {
  const usage = aggregateUsage([RUN_A, RUN_B, RUN_C]);
  assert.deepEqual(usage, [
    {
      worker: "codex",
      model: "gpt-5.5",
      attempts: 2,
      ok: 2,
      tokens: { input: 2_000, output: 400, cached: 50 },
      timeMs: 8_000,
      lastUsed: 20_000,
    },
    {
      worker: "claude",
      model: null,
      attempts: 1,
      ok: 1,
      tokens: { input: 5, output: 5, cached: 0 },
      timeMs: 1_000,
      lastUsed: 30_000,
    },
    {
      worker: "opencode",
      model: "fake/free",
      attempts: 1,
      ok: 0,
      tokens: { input: 0, output: 0, cached: 0 },
      timeMs: 3_000,
      lastUsed: 1_000,
    },
  ]);
});

const LISTED = Array.from({ length: 14 }, (_, i) => ({
  id: `m${i}`,
  efforts: ["low", "high"],
  defaultEffort: "low",
  source: "cli",
}));

Deno.test("mergeModels() puts the default, configured and used models first and hides the rest past ten", () => {
  const settings = settingsOf({
    worker: "codex:m12",
    models: { codex: "m13" },
    fallback: ["codex:extra"],
    costs: { m13: { input: 1, output: 2 } },
  });
  const usage = aggregateUsage([
    finishedRun("20260101-100000-aaaa", [{
      worker: "codex",
      model: "m9",
      startedAt: 1,
      endedAt: 2,
      outcome: "ok",
    }], {
      input: 10,
      output: 1,
    }),
    finishedRun("20260101-100000-bbbb", [{
      worker: "codex",
      model: "gone",
      startedAt: 1,
      endedAt: 2,
      outcome: "ok",
    }], {
      input: 1,
      output: 1,
    }),
  ]);
  const { models, more } = mergeModels({ worker: "codex" }, LISTED, {
    settings,
    usage,
    all: false,
  });
  assert.deepEqual(models.slice(0, 5).map((m) => [m.id, m.source, m.isDefault, m.configured]), [
    ["m13", "cli", true, true],
    ["m12", "cli", false, true],
    ["extra", "config", false, true],
    ["m9", "cli", false, false],
    ["gone", "usage", false, false],
  ]);
  assert.deepEqual(models[0]!.cost, { input: 1, output: 2 });
  assert.equal(models[3]!.usage?.attempts, 1);
  assert.equal(models.length, 10);
  assert.equal(more, 6);
  const all = mergeModels({ worker: "codex" }, LISTED, { settings, usage, all: true });
  assert.equal(all.models.length, 16);
  assert.equal(all.more, 0);
});

Deno.test("collectModels() lists the real CLIs' models, the free workers first, with efforts, costs and usage", async () => {
  await using home = await tempHome();
  await writeRuns(home.stateDir, [RUN_A, RUN_B, RUN_C]);
  const sys = testSys({ stateDir: home.stateDir, env: home.env() });
  const settings = settingsOf({ costs: { "gpt-5.5": { input: 1.25, output: 10, cached: 0.125 } } });
  const workers = await collectModels(sys, settings, { backends: REAL_BACKENDS });
  assert.deepEqual(workers.map((w) => w.worker), [
    "opencode",
    "gemini",
    "kilo",
    "codex",
    "claude",
    "qwen",
    "copilot",
    "crush",
  ]);
  // Qwen Code: its maintained list, with the efforts of its `model.reasoningEffort`.
  const qwen = workers.find((w) => w.worker === "qwen")!;
  assert.deepEqual([qwen.installed, qwen.version], [true, "0.24.4"]);
  assert.equal(qwen.models[0]?.id, "coder-model");
  assert.deepEqual(qwen.models[0]?.efforts, ["low", "medium", "high", "xhigh", "max"]);
  const codex = workers.find((w) => w.worker === "codex")!;
  assert.equal(codex.installed, true);
  assert.equal(codex.version, "0.169.0");
  const gpt = codex.models.find((m) => m.id === "gpt-5.5")!;
  assert.equal(gpt.source, "cli");
  assert.ok(gpt.efforts.includes("medium"), gpt.efforts.join());
  assert.equal(gpt.defaultEffort, "medium");
  assert.deepEqual(gpt.cost, { input: 1.25, output: 10, cached: 0.125 });
  assert.equal(gpt.usage?.attempts, 2);
  assert.equal(codex.models[0]!.id, "gpt-5.5", "the used model comes first");

  const claude = workers.find((w) => w.worker === "claude")!;
  assert.equal(claude.version, "2.1.328");
  assert.equal(claude.models.length, 10);
  assert.ok(claude.more > 0);
  assert.equal(claude.defaultModelUsage?.attempts, 1);
  assert.equal(workers.find((w) => w.worker === "gemini")!.version, "0.61.0");

  const text = renderModels(workers);
  assert.match(text, /^codex 0\.169\.0$/m);
  assert.match(
    text,
    /gpt-5\.5 .*medium\*.*\$1\.25\/\$10\/\$0\.125 +2 runs · 2\.0k in \/ 400 out · 8s/,
  );
  assert.match(text, new RegExp(`  ${claude.more} more: pitroom models claude --all`));
});

Deno.test("collectModels() lists a worker that is not installed with its install hint", async () => {
  await using home = await tempHome();
  const sys = testSys({ stateDir: home.stateDir, env: home.env({ PATH: BARE_PATH }) });
  const settings = settingsOf({ models: { codex: "gpt-5.5" } });
  const [codex] = await collectModels(sys, settings, { backends: REAL_BACKENDS, worker: "codex" });
  assert.equal(codex?.installed, false);
  assert.equal(codex?.installHint, "npm i -g @openai/codex");
  assert.deepEqual(codex?.models.map((m) => [m.id, m.source]), [["gpt-5.5", "config"]]);
  assert.match(renderModels([codex!]), /^codex: not installed: npm i -g @openai\/codex/);
});

Deno.test("pitroom models --json prints one documented object per worker", async () => {
  await using home = await tempHome();
  await home.writeConfig({ models: { opencode: "fake/ok" } });
  // No worker CLI on PATH: the real CLIs' lists are the test above's; this one is the JSON's shape
  // through the real command, without starting eight CLIs again.
  const result = await pitroom(["models", "--json"], {
    env: home.env({ PATH: BARE_PATH }),
    cwd: home.root,
  });
  assert.equal(result.code, 0, result.stderr);
  const workers = JSON.parse(result.stdout) as Record<string, unknown>[];
  assert.deepEqual(workers.map((w) => w.worker), [
    "opencode",
    "gemini",
    "kilo",
    "codex",
    "claude",
    "qwen",
    "copilot",
    "crush",
  ]);
  assert.deepEqual(workers.map((w) => w.installed), workers.map(() => false));
  const opencode = workers[0]!.models as Record<string, unknown>[];
  assert.deepEqual(opencode.filter((m) => m.isDefault).map((m) => m.id), ["fake/ok"]);
  for (const w of workers) {
    assert.deepEqual(Object.keys(w).sort(), [
      "defaultModelUsage",
      "installHint",
      "installed",
      "models",
      "more",
      "version",
      "worker",
    ]);
    for (const m of w.models as Record<string, unknown>[]) {
      assert.deepEqual(Object.keys(m).sort(), [
        "configured",
        "cost",
        "defaultEffort",
        "efforts",
        "id",
        "isDefault",
        "source",
        "usage",
      ]);
    }
  }
});

Deno.test("pitroom models refuses an unknown worker with exit 2", async () => {
  await using home = await tempHome();
  const result = await pitroom(["models", "cursor"], { env: home.env(), cwd: home.root });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Unknown worker "cursor"/);
});
