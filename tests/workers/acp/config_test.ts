/**
 * The config's ACP workers (`workers`), read tolerantly, and their names taken wherever a worker's
 * is: the default worker, `fallback`, `tiers`, `models`, `limits`, `-W` chains.
 */
import assert from "node:assert/strict";
import { resolveSettings } from "../../../src/engine/core/settings.ts";
import { parseChain, resolveChain } from "../../../src/engine/core/chain.ts";
import { readAcpWorkers } from "../../../src/workers/acp/config.ts";
import { cliOf } from "../../../src/workers/acp/mod.ts";
import { acpLaunch } from "../../../src/workers/acp/argv.ts";
import { WORKER_NAMES } from "../../../src/workers/names.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import { backendOf } from "../../../src/workers/lookup.ts";

Deno.test("readAcpWorkers() keeps good entries and warns about each bad one", () => {
  const { workers, warnings } = readAcpWorkers({
    gem: { acp: ["gemini", "--acp"] },
    mine: { acp: ["/opt/a"], env: ["A_KEY"], extra: 1 },
    codex: { acp: ["x"] },
    "a:b": { acp: ["x"] },
    "a,b": { acp: ["x"] },
    empty: { acp: [] },
    blank: { acp: [""] },
    typed: { acp: "gemini --acp" },
    badEnv: { acp: ["x"], env: "A" },
    notObject: ["x"],
    constructor: { acp: ["x"] },
  });
  assert.deepEqual(Object.keys(workers), ["gem", "mine", "constructor"]);
  assert.deepEqual(workers.mine, { acp: ["/opt/a"], env: ["A_KEY"] });
  assert.equal(warnings.length, 9, warnings.join("\n"));
  assert.ok(warnings.some((w) => /"workers.codex": "codex" is a built-in worker/.test(w)));
  assert.deepEqual(readAcpWorkers("x").warnings, [
    'Config key "workers" should be a record: ignored',
  ]);
});

Deno.test("a configured ACP worker is a worker name everywhere in the settings, an unknown one is not", () => {
  const { settings, warnings } = resolveSettings({
    config: {
      worker: "gem,codex",
      fallback: ["oc:fake/x"],
      tiers: { cheap: "gem", review: "oc" },
      models: { gem: "gemini-3-flash" },
      limits: { gem: 2 },
      workers: { gem: { acp: ["gemini", "--acp"] }, oc: { acp: ["opencode", "acp"] } },
    },
    env: { get: () => undefined },
    configPath: "/cfg",
    stateDir: "/state",
  });
  assert.deepEqual(warnings, []);
  assert.equal(settings.worker.value, "gem,codex");
  assert.deepEqual(settings.fallback.value, ["oc:fake/x"]);
  assert.equal(settings.tiers.cheap.value, "gem");
  assert.deepEqual(settings.limits.value, { gem: 2 });
  const chain = resolveChain({
    worker: settings.worker.value,
    fallback: settings.fallback.value,
    models: settings.models.value,
    workers: Object.keys(settings.workers.value),
  }, {});
  assert.deepEqual(chain, [
    { worker: "gem", model: "gemini-3-flash" },
    { worker: "codex" },
    { worker: "oc", model: "fake/x" },
  ]);
  assert.throws(() => parseChain("gem"), /Unknown worker "gem"/);
  const unknown = resolveSettings({
    config: { worker: "ghost", tiers: { cheap: "ghost" } },
    env: { get: () => undefined },
    configPath: "/cfg",
    stateDir: "/state",
  });
  assert.equal(unknown.settings.worker.value, "opencode");
  assert.equal(unknown.warnings.length, 2, unknown.warnings.join("\n"));
});

Deno.test("backendOf() finds built-in and configured workers; an ACP command running a built-in CLI keeps its login", () => {
  const workers = { gem: { acp: ["/usr/local/bin/gemini", "--acp"] }, mine: { acp: ["agent"] } };
  assert.equal(backendOf("codex", workers)?.name, "codex");
  assert.equal(backendOf("gem", workers)?.cli, "gemini");
  assert.equal(backendOf("mine", workers)?.cli, null);
  assert.equal(backendOf("ghost", workers), undefined);
  assert.equal(backendOf("toString", workers), undefined);
  assert.equal(cliOf(["opencode", "acp"]), "opencode");
  assert.equal(cliOf(["npx", "gemini"]), null);
});

Deno.test("an ACP command running any built-in CLI borrows that CLI's own folders (qwen, kilo, copilot, crush too)", () => {
  const spec: RunSpec = {
    mode: "read",
    prompt: "Where is the parser?",
    cwd: "/repo",
    privateDir: "/private",
    web: false,
    baseEnv: { PATH: "/usr/bin", HOME: "/home/u" },
  };
  const state = (command: string[]) => acpLaunch("agent", command, spec).state;
  assert.deepEqual(state(["qwen", "--acp"]), ["/home/u/.qwen"]);
  assert.deepEqual(state(["/opt/bin/kilo", "acp"]), [
    "/home/u/.local/share/kilo",
    "/home/u/.cache/kilo",
    "/home/u/.config/kilo",
    "/home/u/.local/state/kilo",
    "/home/u/.local/state/kilo-sandbox-policy",
    "/home/u/.local/state/kilo-sandbox-preference",
  ]);
  assert.deepEqual(state(["copilot", "--acp"]), ["/home/u/.copilot", "/home/u/.cache/copilot"]);
  assert.deepEqual(state(["crush"]), ["/home/u/.config/crush", "/home/u/.local/share/crush"]);
  // Every built-in CLI has its folders listed; an agent of its own has none.
  for (const cli of WORKER_NAMES) assert.ok(state([cli])!.length > 0, cli);
  assert.equal(state(["my-agent", "--acp"]), undefined);
  // Its environment moves them as it moves the CLI's own.
  const moved = acpLaunch("agent", ["qwen", "--acp"], {
    ...spec,
    baseEnv: { ...spec.baseEnv, QWEN_HOME: "/q" },
  });
  assert.deepEqual(moved.state, ["/q"]);
});
