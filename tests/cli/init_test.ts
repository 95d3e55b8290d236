import assert from "node:assert/strict";
import { join } from "node:path";
import { initConfig, proposeConfig } from "../../src/cli/init.ts";
import { RefusedError } from "../../src/sys/errors.ts";
import { configPathFrom } from "../../src/sys/real.ts";
import type { Sys } from "../../src/sys/mod.ts";
import { pitroom } from "../support/pitroom.ts";
import { testSys } from "../support/sys.ts";
import { BARE_PATH, type Home, REAL_BACKENDS, tempHome } from "./_setup.ts";

/** Without opencode (counted as not installed), so the proposal is fixed. */
const BACKENDS = { ...REAL_BACKENDS, opencode: undefined };

/**
 * codex, claude and gemini found without asking them (each real CLI's `--version` is a second of
 * CPU): the cases about writing the config. The first case finds the real installed CLIs.
 */
const FOUND = Object.fromEntries(
  Object.entries(REAL_BACKENDS).map(([name, backend]) => [
    name,
    backend === undefined || !["codex", "claude", "gemini"].includes(name) ? undefined : {
      ...backend,
      detect: () => Promise.resolve({ binary: name, version: backend.tested.pinned }),
    },
  ]),
) as typeof REAL_BACKENDS;

/** The proposal for codex, claude and gemini: Gemini CLI's free tier before the paid workers. */
const GEMINI_FIRST = {
  worker: "gemini",
  fallback: ["codex", "claude"],
  tiers: {
    cheap: "gemini",
    standard: "codex",
    capable: "claude",
    review: "claude",
    audit: "claude",
  },
  maxParallel: 20,
};

/** A Sys whose config lives under `$XDG_CONFIG_HOME/pitroom/config.json` of the temp home. */
function xdgSys(home: Home): Sys {
  const { PITROOM_CONFIG: _, ...env } = home.env({ XDG_CONFIG_HOME: join(home.root, "xdg") });
  const sys = testSys({ stateDir: home.stateDir, env });
  return { ...sys, configPath: configPathFrom({ get: (n) => env[n], toObject: () => env }) };
}

Deno.test("proposeConfig() puts the free workers first (the worker, then the fallbacks) and sets tiers", () => {
  assert.deepEqual(proposeConfig(["opencode", "codex", "claude", "gemini"]), {
    worker: "opencode",
    fallback: ["gemini", "codex", "claude"],
    tiers: {
      cheap: "opencode",
      standard: "codex",
      capable: "claude",
      review: "claude",
      audit: "claude",
    },
    maxParallel: 20,
  });
  // Gemini CLI's free tier before the paid workers, even when opencode is missing.
  assert.deepEqual(proposeConfig(["codex", "claude", "gemini"]), GEMINI_FIRST);
  // Kilo is a free worker (Kilo Gateway's free models): it leads paid Copilot and Crush.
  assert.deepEqual(proposeConfig(["copilot", "crush", "kilo"]), {
    worker: "kilo",
    fallback: ["copilot", "crush"],
    tiers: { cheap: "kilo", standard: "copilot", review: "kilo", audit: "copilot" },
    maxParallel: 20,
  });
  assert.deepEqual(proposeConfig(["opencode", "claude"]).tiers, {
    cheap: "opencode",
    standard: "claude",
    capable: "claude",
    review: "opencode",
    audit: "claude",
  });
  // Qwen Code (paid: its free login ended) after the free and the others, cheap only without one.
  assert.deepEqual(proposeConfig(["opencode", "codex", "claude", "gemini", "qwen"]).fallback, [
    "gemini",
    "codex",
    "claude",
    "qwen",
  ]);
  assert.deepEqual(proposeConfig(["claude", "qwen"]), {
    worker: "claude",
    fallback: ["qwen"],
    tiers: { cheap: "qwen", standard: "claude", capable: "claude", review: "qwen", audit: "qwen" },
    maxParallel: 20,
  });
  assert.deepEqual(proposeConfig(["gemini"], { model: "gemini-2.5-flash", fallback: [] }), {
    worker: "gemini",
    models: { gemini: "gemini-2.5-flash" },
    tiers: { cheap: "gemini", standard: "gemini" },
    maxParallel: 20,
  });
});

Deno.test("proposeConfig() refuses when no worker is installed", () => {
  assert.throws(() => proposeConfig([]), RefusedError);
});

Deno.test("initConfig() proposes from the real installed CLIs and writes nothing without yes", async () => {
  await using home = await tempHome();
  const sys = xdgSys(home);
  const report = await initConfig(sys, { backends: BACKENDS });
  assert.equal(report.path, join(home.root, "xdg", "pitroom", "config.json"));
  // The pinned CLIs found there: the free ones (gemini, kilo) lead the chain, the paid ones follow in the order of the worker list.
  assert.deepEqual(report.config, {
    ...GEMINI_FIRST,
    fallback: ["kilo", "codex", "claude", "qwen", "copilot"],
  });
  assert.equal(report.written, false);
  await assert.rejects(Deno.stat(report.path), Deno.errors.NotFound);
});

Deno.test("initConfig() with yes creates the config dir and writes the proposal", async () => {
  await using home = await tempHome();
  const sys = xdgSys(home);
  const report = await initConfig(sys, {
    backends: FOUND,
    yes: true,
    model: "gemini-2.5-flash",
    fallback: ["claude:opus"],
  });
  assert.equal(report.written, true);
  assert.equal(report.backup, null);
  const written = JSON.parse(await Deno.readTextFile(report.path));
  assert.deepEqual(written, {
    worker: "gemini",
    fallback: ["claude:opus"],
    models: { gemini: "gemini-2.5-flash" },
    tiers: GEMINI_FIRST.tiers,
    maxParallel: 20,
  });
  assert.equal((await Deno.stat(report.path)).mode! & 0o777, 0o600);
});

Deno.test("initConfig() refuses to replace a config without force", async () => {
  await using home = await tempHome();
  await home.writeConfig({ worker: "gemini" });
  const sys = testSys({ stateDir: home.stateDir, env: home.env() });
  await assert.rejects(
    initConfig(sys, { backends: FOUND, yes: true }),
    (error: unknown) =>
      error instanceof RefusedError && error.exit === 3 &&
      error.hint === "pitroom init --yes --force (keeps a backup)",
  );
  assert.deepEqual(JSON.parse(await Deno.readTextFile(home.configPath)), { worker: "gemini" });
});

Deno.test("initConfig() with force keeps a backup of the old config first", async () => {
  await using home = await tempHome();
  await home.writeConfig({ worker: "claude" });
  const sys = testSys({ stateDir: home.stateDir, env: home.env() });
  const report = await initConfig(sys, { backends: FOUND, yes: true, force: true });
  assert.ok(report.backup?.startsWith(`${home.configPath}.bak-`), report.backup ?? "no backup");
  assert.deepEqual(JSON.parse(await Deno.readTextFile(report.backup!)), { worker: "claude" });
  assert.equal(JSON.parse(await Deno.readTextFile(home.configPath)).worker, "gemini");
});

Deno.test("initConfig() refuses an unknown fallback worker before writing", async () => {
  await using home = await tempHome();
  const sys = testSys({ stateDir: home.stateDir, env: home.env() });
  await assert.rejects(
    initConfig(sys, { backends: FOUND, yes: true, fallback: ["cursor"] }),
    /Unknown worker "cursor"/,
  );
  await assert.rejects(Deno.stat(home.configPath), Deno.errors.NotFound);
});

Deno.test("pitroom init refuses with exit 3 when no worker CLI is installed", async () => {
  await using home = await tempHome();
  const result = await pitroom(["init", "--yes"], {
    env: home.env({ PATH: BARE_PATH }),
    cwd: home.root,
  });
  assert.equal(result.code, 3, result.stderr);
  assert.match(result.stderr, /No worker CLI is installed/);
  assert.match(result.stderr, /hint: npm i -g opencode-ai/);
  await assert.rejects(Deno.stat(home.configPath), Deno.errors.NotFound);
});

Deno.test("initConfig() with force keeps the config's own ACP workers, which --fallback may name", async () => {
  await using home = await tempHome();
  const workers = { gem: { acp: ["gemini", "--acp"] } };
  await home.writeConfig({ worker: "claude", workers });
  const sys = testSys({ stateDir: home.stateDir, env: home.env() });
  const report = await initConfig(sys, {
    backends: FOUND,
    yes: true,
    force: true,
    fallback: ["gem", "codex"],
  });
  assert.equal(report.written, true);
  const written = JSON.parse(await Deno.readTextFile(home.configPath));
  assert.deepEqual(written.workers, workers);
  assert.deepEqual(written.fallback, ["gem", "codex"]);
});
