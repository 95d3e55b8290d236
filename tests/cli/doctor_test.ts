import assert from "node:assert/strict";
import { join } from "node:path";
import { renderChecks } from "../../src/cli/doctor.ts";
import { type Check, runDoctor } from "../../src/engine/setup/doctor.ts";
import { codexBackend } from "../../src/workers/codex/mod.ts";
import { startModelServer } from "../support/model_server/fixture.ts";
import { pitroom } from "../support/pitroom.ts";
import { testSys } from "../support/sys.ts";
import { BARE_PATH, REAL_BACKENDS, tempHome } from "./_setup.ts";
import { type Backend, WORKER_NAMES, type WorkerName } from "../../src/workers/types.ts";

/** No backend at all: every worker not installed. */
const NONE = Object.fromEntries(WORKER_NAMES.map((w) => [w, undefined])) as Record<
  WorkerName,
  Backend | undefined
>;

function find(checks: Check[], check: string, worker?: string): Check {
  const found = checks.find((c) => c.check === check && c.worker === worker);
  assert.ok(found, `no ${check} check${worker ? ` for ${worker}` : ""}`);
  const { section: _, ...rest } = found;
  return rest;
}

Deno.test("runDoctor() finds the real installed CLIs, their paths and pinned versions", async () => {
  await using home = await tempHome();
  await home.writeConfig({ worker: "codex", fallback: ["claude"] });
  const sys = testSys({ stateDir: home.stateDir, env: home.env() });
  const checks = await runDoctor(sys, { backends: REAL_BACKENDS });
  for (
    const [worker, version] of [["codex", "0.169.0"], ["claude", "2.1.328"], ["gemini", "0.61.0"]]
  ) {
    const installed = find(checks, "worker", worker);
    assert.equal(installed.status, "ok");
    assert.equal(installed.version, version);
    assert.ok(installed.path?.endsWith(`/node_modules/.bin/${worker}`), installed.path);
    assert.equal(find(checks, "version", worker).status, "ok");
  }
  assert.equal(find(checks, "fallback").status, "ok");
  assert.equal(find(checks, "git").status, "ok");
  assert.deepEqual(find(checks, "state_dir"), {
    check: "state_dir",
    status: "ok",
    message: `${home.stateDir} is writable`,
    path: home.stateDir,
  });
  assert.equal(checks.filter((c) => c.status === "error").length, 0, renderChecks(checks));
});

Deno.test("runDoctor() warns about a version outside the tested range", async () => {
  await using home = await tempHome();
  const sys = testSys({ stateDir: home.stateDir, env: home.env() });
  const newer = {
    ...codexBackend,
    detect: () => Promise.resolve({ binary: "codex", version: "0.170.0" }),
  };
  const checks = await runDoctor(sys, {
    backends: { ...NONE, codex: newer },
  });
  assert.deepEqual(find(checks, "version", "codex"), {
    check: "version",
    worker: "codex",
    status: "warn",
    message: "0.170.0 is newer than the versions Pitroom is tested with (0.169.0): " +
      "its `exec --json` events, `exec resume` and the `config.toml` provider and feature keys " +
      "may have changed, so runs may fail or be misread",
    version: "0.170.0",
    pinned: "0.169.0",
    tested: { min: "0.169.0", max: "0.169.0" },
    hint: "npm i -g @openai/codex@0.169.0",
  });
});

Deno.test("runDoctor() reports config warnings, uninstalled workers it names and a missing fallback", async () => {
  await using home = await tempHome();
  await home.writeConfig({ worker: "codex", tiers: { capable: "claude" }, speed: "fast" });
  const sys = testSys({ stateDir: home.stateDir, env: home.env({ PATH: BARE_PATH }) });
  const checks = await runDoctor(sys, { backends: REAL_BACKENDS });
  assert.equal(find(checks, "worker", "codex").status, "warn");
  assert.equal(find(checks, "worker", "codex").hint, "npm i -g @openai/codex");
  assert.deepEqual(find(checks, "config"), {
    check: "config",
    status: "warn",
    message: 'Config key "speed" is unknown and ignored',
  });
  assert.equal(find(checks, "chain", "codex").status, "error");
  assert.equal(
    find(checks, "chain", "codex").message,
    '"worker" names codex, which is not installed',
  );
  assert.equal(find(checks, "chain", "claude").status, "warn");
  assert.equal(
    find(checks, "fallback").message,
    "no fallback configured: a rate-limited free model will fail the run",
  );
});

Deno.test("runDoctor() says when the state dir is not writable", async () => {
  await using home = await tempHome();
  const blocker = join(home.root, "file");
  await Deno.writeTextFile(blocker, "not a dir\n");
  const sys = testSys({ stateDir: join(blocker, "state"), env: home.env() });
  const checks = await runDoctor(sys, { backends: REAL_BACKENDS });
  const stateDir = find(checks, "state_dir");
  assert.equal(stateDir.status, "error");
  assert.match(stateDir.message, /is not writable/);
});

Deno.test("pitroom doctor --json prints the checks and exits 3 when no worker is installed", async () => {
  await using home = await tempHome();
  const result = await pitroom(["doctor", "--json"], {
    env: home.env({ PATH: BARE_PATH }),
    cwd: home.root,
  });
  assert.equal(result.code, 3, result.stderr);
  // Under --json the error is one JSON object too (the checks stay on stdout).
  const { error } = JSON.parse(result.stderr);
  assert.equal(error.code, "no_worker");
  assert.equal(error.message, "No worker CLI is installed");
  assert.match(error.hint, /^npm i -g opencode-ai/);
  const { checks, next } = JSON.parse(result.stdout) as { checks: Check[]; next: string[] };
  assert.deepEqual(
    checks.filter((c) => c.check === "worker").map((c) => c.worker),
    ["opencode", "codex", "claude", "gemini", "qwen", "kilo", "copilot", "crush"],
  );
  assert.equal(next[0], "npm i -g opencode-ai");
  assert.ok(checks.every((c) => c.section !== undefined));
  assert.ok(checks.every((c) => ["ok", "warn", "error", "skip"].includes(c.status)));
  assert.ok(checks.every((c) => typeof c.message === "string" && c.message.length > 0));
});

// codex answers and claude fails fast: a second each, where an opencode probe costs ten on CI.
Deno.test("runDoctor() with probe runs a real worker against the scripted model server and reports a failing fallback", async () => {
  await using server = await startModelServer({
    scenarios: {
      ok: { turns: [{ answer: "OK" }] },
      gone: { turns: [{ error: { kind: "model_not_found" } }] },
    },
  });
  await using home = await tempHome();
  await home.writeConfig({
    worker: "codex",
    fallback: ["claude:gone"],
    models: { codex: "fake/ok" },
  });
  const sys = testSys({
    stateDir: home.stateDir,
    env: { ...server.env, PITROOM_CONFIG: home.configPath },
  });
  const checks = await runDoctor(sys, { probe: true, backends: REAL_BACKENDS });
  const codex = find(checks, "probe", "codex");
  assert.equal(codex.status, "ok", codex.message);
  assert.equal(codex.model, "fake/ok");
  assert.equal(codex.outcome, "ok");
  assert.match(codex.message, /^answered "OK" in /);
  const claude = find(checks, "probe", "claude");
  assert.equal(claude.status, "error");
  assert.equal(claude.outcome, "model_not_found");
  assert.match(claude.message, /^model_not_found: /);
  // The probes ran in a throwaway state dir: nothing is left in the real one.
  await assert.rejects(Deno.stat(join(home.stateDir, "runs")), Deno.errors.NotFound);
});

Deno.test("runDoctor() says which sandbox runs workers, warns without one, errors when required", async () => {
  await using home = await tempHome();
  const sys = testSys({ stateDir: home.stateDir, env: home.env() });
  const none = NONE;
  await Deno.mkdir(join(home.root, ".ssh"), { recursive: true });
  await Deno.writeTextFile(join(home.root, ".netrc"), "machine x password y\n");
  const found = find(await runDoctor(sys, { backends: none }), "sandbox");
  assert.equal(found.status, "ok", found.message);
  assert.match(
    found.message,
    /^workers run in bwrap \(.*bwrap\); hidden from workers: Pitroom's state dir and config, 2 credential paths \(~\/\.ssh, ~\/\.netrc\) \(each CLI keeps its own login\), and a tree's secret-looking files; network: the host's$/,
  );
  // The config's sandbox.hide and sandbox.show are counted in.
  await Deno.mkdir(join(home.root, "notes"));
  await home.writeConfig({
    sandbox: { hide: ["~/notes", "*.sqlite"], show: ["~/.netrc", ".env.test"] },
  });
  const configured = find(await runDoctor(sys, { backends: none }), "sandbox");
  assert.match(
    configured.message,
    /hidden from workers: Pitroom's state dir and config, 2 credential paths \(~\/\.ssh, ~\/notes\) \(each CLI keeps its own login\), and a tree's secret-looking files and those named \*\.sqlite \(shown after all: ~\/\.netrc, \.env\.test\); network/,
  );
  await home.writeConfig({ sandbox: "off" });
  const off = find(await runDoctor(sys, { backends: none }), "sandbox");
  assert.equal(off.status, "warn");
  assert.match(off.message, /without a sandbox: "sandbox" is "off"/);
  // No bwrap on PATH: a warning, or an error when the config requires a sandbox.
  await home.writeConfig({ sandbox: "required" });
  const bare = testSys({ stateDir: home.stateDir, env: { ...home.env(), PATH: home.root } });
  const required = find(await runDoctor(bare, { backends: none }), "sandbox");
  assert.equal(required.status, "error");
  assert.match(required.message, /bubblewrap \(bwrap\) is not installed.*"required"/);
  assert.equal(required.hint, "apt-get install bubblewrap");
  // An isolated network where pasta is missing: an error, runs are refused.
  const bin = join(home.root, "bin");
  await Deno.mkdir(bin);
  await Deno.symlink("/usr/bin/bwrap", join(bin, "bwrap"));
  await home.writeConfig({ sandbox: { network: "isolated" } });
  const noPasta = testSys({ stateDir: home.stateDir, env: { ...home.env(), PATH: bin } });
  const isolated = find(await runDoctor(noPasta, { backends: none }), "sandbox");
  assert.equal(isolated.status, "error", isolated.message);
  assert.match(
    isolated.message,
    /network: "isolated" cannot be made \(pasta .* is not installed\)/,
  );
  assert.match(isolated.hint ?? "", /apt-get install passt/);
});
