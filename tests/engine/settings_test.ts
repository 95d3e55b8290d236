import assert from "node:assert/strict";
import { durationMs } from "../../src/sys/duration.ts";
import {
  resolveSettings,
  resolveTier,
  type SettingsInput,
} from "../../src/engine/core/settings.ts";
import type { Config } from "../../src/store/config.ts";

function input(
  config: Config,
  env: Record<string, string> = {},
  flags: SettingsInput["flags"] = {},
): SettingsInput {
  return {
    config,
    env: { get: (name) => env[name] },
    flags,
    configPath: "/cfg/config.json",
    stateDir: "/state",
  };
}

Deno.test("resolveSettings() gives defaults with source default for an empty config", () => {
  const { settings, warnings } = resolveSettings(input({}));
  assert.deepEqual(warnings, []);
  assert.deepEqual(settings.worker, { value: "opencode", source: "default" });
  assert.deepEqual(settings.fallback, { value: [], source: "default" });
  assert.deepEqual(settings.maxParallel, { value: 20, source: "default" });
  assert.deepEqual(settings.timeout, { value: { text: "30m", ms: 1_800_000 }, source: "default" });
  assert.deepEqual(settings.tiers.cheap, { value: null, source: "default" });
  assert.deepEqual(settings.configPath, { value: "/cfg/config.json", source: "default" });
});

Deno.test("resolveSettings() takes the file over the default, env over the file, flag over env", () => {
  const config: Config = { worker: "codex", maxParallel: 5, timeout: "10m" };
  const file = resolveSettings(input(config)).settings;
  assert.deepEqual(file.worker, { value: "codex", source: "file" });
  assert.deepEqual(file.maxParallel, { value: 5, source: "file" });
  assert.deepEqual(file.timeout, { value: { text: "10m", ms: 600_000 }, source: "file" });

  const env = { PITROOM_WORKER: "claude", PITROOM_MAX_PARALLEL: "7", PITROOM_TIMEOUT: "90s" };
  const fromEnv = resolveSettings(input(config, env)).settings;
  assert.deepEqual(fromEnv.worker, { value: "claude", source: "env" });
  assert.deepEqual(fromEnv.maxParallel, { value: 7, source: "env" });
  assert.deepEqual(fromEnv.timeout, { value: { text: "90s", ms: 90_000 }, source: "env" });

  const flagged = resolveSettings(
    input(config, env, { worker: "gemini", maxParallel: 3, timeout: "1h", fallback: ["codex"] }),
  ).settings;
  assert.deepEqual(flagged.worker, { value: "gemini", source: "flag" });
  assert.deepEqual(flagged.maxParallel, { value: 3, source: "flag" });
  assert.deepEqual(flagged.timeout.value.ms, 3_600_000);
  assert.deepEqual(flagged.fallback, { value: ["codex"], source: "flag" });
});

Deno.test("resolveSettings() clamps maxParallel to 1..30 and warns", () => {
  const high = resolveSettings(input({ maxParallel: 99 }));
  assert.equal(high.settings.maxParallel.value, 30);
  assert.deepEqual(high.warnings, ["maxParallel 99 is outside 1..30: using 30"]);
  const low = resolveSettings(input({}, { PITROOM_MAX_PARALLEL: "0" }));
  assert.deepEqual(low.settings.maxParallel, { value: 1, source: "env" });
  assert.equal(low.warnings.length, 1);
});

Deno.test("resolveSettings() warns about bad values and falls back past them", () => {
  const { settings, warnings } = resolveSettings(input(
    { worker: "nobody", timeout: "soon", fallback: ["codex", "martian"], maxParallel: 4 },
    { PITROOM_MAX_PARALLEL: "many" },
  ));
  assert.deepEqual(settings.worker, { value: "opencode", source: "default" });
  assert.deepEqual(settings.timeout.source, "default");
  assert.deepEqual(settings.fallback, { value: ["codex"], source: "file" });
  assert.deepEqual(settings.maxParallel, { value: 4, source: "file" });
  assert.deepEqual(warnings, [
    'Config key "worker" "nobody" is not a worker chain like opencode or codex:gpt-5.5,claude: ignored',
    'Config "fallback" entry "martian" is not a worker target: ignored',
    'Config key "timeout" "soon" is not a time like 90s, 30m or 1h, of at most 7d: ignored',
    'PITROOM_MAX_PARALLEL "many" is not a number: ignored',
  ]);
});

Deno.test("resolveSettings() keeps models, tiers and costs from the file and warns about bad entries", () => {
  const config = {
    models: { opencode: "fake/ok", robot: "x" },
    tiers: { cheap: "opencode", capable: "claude:opus", premium: "codex", review: 3 },
    costs: {
      "gpt-5.5": { input: 1.25, output: 10, cached: 0.125 },
      bad: { input: "free", per: 1 },
    },
  } as unknown as Config;
  const { settings, warnings } = resolveSettings(input(config));
  assert.deepEqual(settings.models, { value: { opencode: "fake/ok" }, source: "file" });
  assert.deepEqual(settings.tiers.cheap, { value: "opencode", source: "file" });
  assert.deepEqual(settings.tiers.capable, { value: "claude:opus", source: "file" });
  assert.deepEqual(settings.tiers.review, { value: null, source: "default" });
  assert.deepEqual(settings.costs.value["gpt-5.5"], { input: 1.25, output: 10, cached: 0.125 });
  assert.deepEqual(settings.costs.value.bad, {});
  assert.deepEqual(warnings, [
    'Config "models" names an unknown worker "robot": ignored',
    'Config "tiers" has an unknown tier "premium" (cheap, standard, capable, review, audit): ignored',
    'Config "tiers.review" should be a worker chain like "opencode": ignored',
    'Config "costs.bad.input" should be USD per million tokens: ignored',
    'Config "costs.bad.per" is unknown and ignored',
  ]);
});

Deno.test("resolveSettings() says the config path and state dir come from the env when set", () => {
  const { settings } = resolveSettings(
    input({}, { PITROOM_CONFIG: "/cfg/config.json", PITROOM_STATE_DIR: "/state" }),
  );
  assert.equal(settings.configPath.source, "env");
  assert.equal(settings.stateDir.source, "env");
});

Deno.test("resolveTier() returns a configured tier without a warning", () => {
  const { settings } = resolveSettings(input({ tiers: { standard: "codex:gpt-5.5" } }));
  assert.deepEqual(resolveTier(settings, "standard"), { chain: "codex:gpt-5.5" });
});

Deno.test("resolveTier() falls back to the default worker with a warning", () => {
  const { settings } = resolveSettings(input({ worker: "codex" }));
  assert.deepEqual(resolveTier(settings, "capable"), {
    chain: "codex",
    warning: 'Tier "capable" is not configured: using the default worker "codex"',
  });
});

Deno.test("resolveTier() uses the cheap tier for an unconfigured audit tier", () => {
  const { settings } = resolveSettings(input({ tiers: { cheap: "gemini" } }));
  assert.deepEqual(resolveTier(settings, "audit"), {
    chain: "gemini",
    warning: 'Tier "audit" is not configured: using the cheap tier "gemini"',
  });
});

Deno.test("durationMs() reads units and plain seconds, null for anything else", () => {
  assert.equal(durationMs("2h30m"), 9_000_000);
  assert.equal(durationMs("45"), 45_000);
  assert.equal(durationMs("0"), null);
  assert.equal(durationMs("3 weeks"), null);
});

Deno.test("resolveSettings() ignores a timeout above 7d from the environment or the config, with a warning", () => {
  const { settings, warnings } = resolveSettings({
    config: { timeout: "8d" },
    env: { get: (name: string) => (name === "PITROOM_TIMEOUT" ? "99999h" : undefined) },
    configPath: "",
    stateDir: "",
  });
  assert.equal(settings.timeout.source, "default");
  assert.equal(settings.timeout.value.text, "30m");
  assert.equal(
    warnings.filter((w) => /at most 7d: ignored/.test(w)).length,
    2,
    warnings.join("\n"),
  );
});

Deno.test("resolveSettings() reads dash: on by default, the file's false, PITROOM_DASH over it", () => {
  assert.deepEqual(resolveSettings(input({})).settings.dash, { value: true, source: "default" });
  assert.deepEqual(resolveSettings(input({ dash: false })).settings.dash, {
    value: false,
    source: "file",
  });
  assert.deepEqual(resolveSettings(input({ dash: false }, { PITROOM_DASH: "1" })).settings.dash, {
    value: true,
    source: "env",
  });
  const bad = resolveSettings(input({}, { PITROOM_DASH: "maybe" }));
  assert.deepEqual(bad.settings.dash, { value: true, source: "default" });
  assert.match(bad.warnings.join("\n"), /PITROOM_DASH "maybe" is not true or false/);
});

Deno.test("resolveSettings() reads dashIdle: 15 minutes by default, the file's time, a bad one warned", () => {
  assert.deepEqual(resolveSettings(input({})).settings.dashIdle, {
    value: { text: "15m", ms: 900_000 },
    source: "default",
  });
  assert.deepEqual(resolveSettings(input({ dashIdle: "2h" })).settings.dashIdle, {
    value: { text: "2h", ms: 7_200_000 },
    source: "file",
  });
  for (const bad of ["soon", "0s", "30d"]) {
    const resolved = resolveSettings(input({ dashIdle: bad }));
    assert.deepEqual(resolved.settings.dashIdle.value.ms, 900_000, bad);
    assert.match(resolved.warnings.join("\n"), /Config key "dashIdle" ".*" is not a time/, bad);
  }
});

Deno.test("resolveSettings() takes mcpDash from PITROOM_MCP_DASH, else the config, else on", () => {
  assert.deepEqual(resolveSettings(input({})).settings.mcpDash, { value: true, source: "default" });
  assert.deepEqual(resolveSettings(input({ mcpDash: false })).settings.mcpDash, {
    value: false,
    source: "file",
  });
  assert.deepEqual(resolveSettings(input({}, { PITROOM_MCP_DASH: "0" })).settings.mcpDash, {
    value: false,
    source: "env",
  });
  assert.deepEqual(
    resolveSettings(input({ mcpDash: false }, { PITROOM_MCP_DASH: "1" })).settings.mcpDash,
    { value: true, source: "env" },
  );
});

Deno.test("resolveSettings() takes stallAfter from the file (10m by default) and warns about a bad one", () => {
  assert.deepEqual(resolveSettings(input({})).settings.stallAfter, {
    value: { text: "10m", ms: 600_000 },
    source: "default",
  });
  assert.deepEqual(resolveSettings(input({ stallAfter: "90s" })).settings.stallAfter, {
    value: { text: "90s", ms: 90_000 },
    source: "file",
  });
  for (const bad of ["never", "0", "500ms", "8d"]) {
    const { settings, warnings } = resolveSettings(input({ stallAfter: bad }));
    assert.deepEqual(settings.stallAfter.source, "default", bad);
    assert.deepEqual(warnings, [
      `Config key "stallAfter" "${bad}" is not a time like 90s, 10m or 1h, of 1s to 7d: ignored`,
    ]);
  }
});
