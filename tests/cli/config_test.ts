import assert from "node:assert/strict";
import { pitroom } from "../support/pitroom.ts";
import { tempHome } from "./_setup.ts";

Deno.test("pitroom config --json shows every setting with its source, the paths and the warnings", async () => {
  await using home = await tempHome();
  await home.writeConfig({
    worker: "codex",
    fallback: ["claude"],
    tiers: { cheap: "opencode" },
    maxParallel: 50,
    colour: "blue",
  });
  const result = await pitroom(["config", "--json"], {
    env: home.env({ PITROOM_TIMEOUT: "45m" }),
    cwd: home.root,
  });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.equal(report.configPath, home.configPath);
  assert.equal(report.configExists, true);
  assert.equal(report.stateDir, home.stateDir);
  assert.deepEqual(Object.keys(report.settings), [
    "worker",
    "fallback",
    "models",
    "tiers.cheap",
    "tiers.standard",
    "tiers.capable",
    "tiers.review",
    "tiers.audit",
    "costs",
    "workerPrices",
    "primary",
    "price",
    "maxParallel",
    "limits",
    "timeout",
    "stallAfter",
    "caps",
    "notify",
    "notifyCommand",
    "cacheDays",
    "audit",
    "auditFix",
    "budgetDaily",
    "rankWorkers",
    "mcpDash",
    "dash",
    "dashIdle",
    "configPath",
    "stateDir",
  ]);
  assert.deepEqual(report.settings.worker, { value: "codex", source: "file" });
  assert.deepEqual(report.settings.fallback, { value: ["claude"], source: "file" });
  assert.deepEqual(report.settings["tiers.cheap"], { value: "opencode", source: "file" });
  assert.deepEqual(report.settings["tiers.capable"], { value: null, source: "default" });
  assert.deepEqual(report.settings.maxParallel, { value: 30, source: "file" });
  assert.deepEqual(report.settings.timeout, { value: "45m", source: "env" });
  assert.deepEqual(report.settings.stallAfter, { value: "10m", source: "default" });
  assert.deepEqual(report.settings.configPath, { value: home.configPath, source: "env" });
  assert.deepEqual(report.warnings, [
    'Config key "colour" is unknown and ignored',
    "maxParallel 50 is outside 1..30: using 30",
  ]);
});

Deno.test("pitroom config prints a table on stdout and the warnings on stderr", async () => {
  await using home = await tempHome();
  await home.writeConfig({ worker: 42 });
  const result = await pitroom(["config"], { env: home.env(), cwd: home.root });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^worker +default +opencode$/m);
  assert.match(result.stdout, new RegExp(`^config +${home.configPath} \\(exists`, "m"));
  assert.doesNotMatch(result.stdout, /should be a string/);
  assert.match(result.stderr, /warning: Config key "worker" should be a string: ignored/);
});

Deno.test("pitroom config says when the config file is missing", async () => {
  await using home = await tempHome();
  const result = await pitroom(["config", "--json"], { env: home.env(), cwd: home.root });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.equal(report.configExists, false);
  assert.deepEqual(report.warnings, []);
  assert.deepEqual(report.settings.worker, { value: "opencode", source: "default" });
});

Deno.test("pitroom config shows the caps: none by default, the file's when it sets them", async () => {
  await using home = await tempHome();
  const none = await pitroom(["config", "--json"], { env: home.env(), cwd: home.root });
  assert.equal(none.code, 0, none.stderr);
  assert.deepEqual(JSON.parse(none.stdout).settings.caps, { value: {}, source: "default" });
  await home.writeConfig({ caps: { maxSteps: 40, maxCost: 0.5 } });
  const set = await pitroom(["config", "--json"], { env: home.env(), cwd: home.root });
  assert.deepEqual(JSON.parse(set.stdout).settings.caps, {
    value: { maxCost: 0.5, maxSteps: 40 },
    source: "file",
  });
  const text = await pitroom(["config"], { env: home.env(), cwd: home.root });
  assert.match(text.stdout, /^caps\s+file\s+maxCost=0\.5 maxSteps=40$/m);
});

Deno.test("config keys every object has (constructor, __proto__, toString) are unknown keys, not functions", async () => {
  await using home = await tempHome();
  const names = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];
  // Written as text: a `__proto__` key in an object literal would not be an own key.
  await home.writeConfig({});
  await Deno.writeTextFile(
    home.configPath,
    `{${names.map((n) => `"${n}": 1`).join(", ")}, "worker": "codex"}`,
  );
  const result = await pitroom(["config", "--json"], { env: home.env(), cwd: home.root });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.deepEqual(report.warnings, names.map((n) => `Config key "${n}" is unknown and ignored`));
  assert.deepEqual(report.settings.worker, { value: "codex", source: "file" });
  const text = await pitroom(["config"], { env: home.env(), cwd: home.root });
  assert.doesNotMatch(text.stdout + text.stderr, /native code|function|\[object/);
});
