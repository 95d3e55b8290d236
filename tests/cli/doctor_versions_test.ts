/**
 * `doctor` against the versions each backend was tested with, with fake CLIs on PATH that print a
 * chosen `--version` (no model runs): one warning line per CLI outside its range, naming the
 * installed version, the range and what may break; nothing new for one inside; its own warning
 * for a version that cannot be read; the range in `--json`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { renderChecks } from "../../src/cli/doctor.ts";
import { type Check, runDoctor } from "../../src/engine/setup/doctor.ts";
import { BACKENDS } from "../../src/workers/registry.ts";
import { pitroom } from "../support/pitroom.ts";
import { testSys } from "../support/sys.ts";
import { type Home, REAL_BACKENDS, tempHome } from "./_setup.ts";

/** Writes a fake CLI per entry that prints `output` for `--version` (and fails otherwise). */
async function fakeClis(home: Home, outputs: Record<string, string>): Promise<string> {
  const bin = join(home.root, "bin");
  await Deno.mkdir(bin, { recursive: true });
  for (const [name, output] of Object.entries(outputs)) {
    const path = join(bin, name);
    const quoted = `'${output.replaceAll("'", "'\\''")}'`;
    await Deno.writeTextFile(
      path,
      `#!/bin/sh\n[ "$1" = --version ] || exit 9\nprintf '%s' ${quoted}\n`,
    );
    await Deno.chmod(path, 0o755);
  }
  return `${bin}:/usr/bin:/bin`;
}

const versionOf = (checks: readonly Check[], worker: string) =>
  checks.find((c) => c.check === "version" && c.worker === worker);

/** The lines of the rendered checks that mention `worker`. */
const linesOf = (checks: readonly Check[], worker: string) =>
  renderChecks(checks).split("\n").filter((l) => l.includes(` ${worker} `));

Deno.test("runDoctor() warns in one line about a CLI newer or older than its tested range, and adds nothing inside it", async () => {
  await using home = await tempHome();
  const { codex, claude, gemini } = BACKENDS;
  const PATH = await fakeClis(home, {
    codex: "codex-cli 99.0.0\n",
    claude: `${claude.tested.max} (Claude Code)\n`,
    gemini: `${gemini.tested.min}-nightly.20260909.ged2ac40df\n`,
  });
  const sys = testSys({ stateDir: home.stateDir, env: home.env({ PATH }) });
  const checks = await runDoctor(sys, { backends: REAL_BACKENDS });

  const newer = versionOf(checks, "codex")!;
  assert.equal(newer.status, "warn");
  assert.equal(newer.version, "99.0.0");
  assert.deepEqual(newer.tested, { min: codex.tested.min, max: codex.tested.max });
  assert.equal(
    newer.message,
    `99.0.0 is newer than the versions Pitroom is tested with (${codex.tested.min}): ${codex.tested.relies} may have changed, so runs may fail or be misread`,
  );
  assert.equal(newer.hint, `npm i -g @openai/codex@${codex.tested.pinned}`);
  const codexLines = linesOf(checks, "codex");
  assert.equal(codexLines.filter((l) => l.startsWith("warn")).length, 1, codexLines.join("\n"));

  const older = versionOf(checks, "gemini")!;
  assert.equal(older.status, "warn");
  assert.match(older.message, /-nightly\.20260909\.ged2ac40df is older than the versions Pitroom/);

  // Inside the range: the worker's two rows as before, both ok, nothing else.
  const inside = versionOf(checks, "claude")!;
  assert.equal(inside.status, "ok");
  assert.equal(inside.message, `${claude.tested.max} is the version Pitroom is tested with`);
  assert.deepEqual(inside.tested, { min: claude.tested.min, max: claude.tested.max });
  const claudeLines = linesOf(checks, "claude");
  assert.deepEqual(claudeLines.map((l) => l.split(/\s+/).slice(0, 3).join(" ")), [
    "ok worker claude",
    "ok version claude",
  ]);
  assert.equal(versionOf(checks, "opencode"), undefined, "opencode is not on PATH");
});

Deno.test("runDoctor() gives a version it cannot read its own warning, shown without the CLI's control characters", async () => {
  await using home = await tempHome();
  const PATH = await fakeClis(home, {
    codex: "codex nightly \x1b[31mred\x1b[0m\n",
    claude: "",
    gemini: `${"x".repeat(300)}\n`,
  });
  const sys = testSys({ stateDir: home.stateDir, env: home.env({ PATH }) });
  const checks = await runDoctor(sys, { backends: REAL_BACKENDS });
  const range = BACKENDS.codex.tested.min;
  const codex = versionOf(checks, "codex")!;
  assert.equal(codex.status, "warn");
  assert.equal(
    codex.message,
    `--version printed "codex nightly ?[31mred?[0m", not a version number: it cannot be checked against the versions Pitroom is tested with (${range})`,
  );
  // The CLI is there and may work: it counts as installed.
  assert.equal(checks.find((c) => c.check === "worker" && c.worker === "codex")?.status, "ok");
  const claude = versionOf(checks, "claude")!;
  assert.equal(claude.status, "warn");
  assert.match(claude.message, /^--version printed no version number: /);
  assert.equal(versionOf(checks, "gemini")!.version, "x".repeat(80));
  assert.ok(!renderChecks(checks).includes("\x1b"));
});

Deno.test("pitroom doctor --json gives each installed worker's tested range", async () => {
  await using home = await tempHome();
  const { codex } = BACKENDS;
  const PATH = await fakeClis(home, { codex: `codex-cli ${codex.tested.pinned}\n` });
  await home.writeConfig({ worker: "codex" });
  const result = await pitroom(["doctor", "--json"], { env: home.env({ PATH }), cwd: home.root });
  const { checks } = JSON.parse(result.stdout) as { checks: Check[] };
  assert.deepEqual(versionOf(checks, "codex"), {
    check: "version",
    section: "workers",
    worker: "codex",
    status: "ok",
    message: `${codex.tested.pinned} is the version Pitroom is tested with`,
    version: codex.tested.pinned,
    pinned: codex.tested.pinned,
    tested: { min: codex.tested.min, max: codex.tested.max },
  });
});

Deno.test("runDoctor() checks the config's ACP workers: found or not, the version of a built-in CLI's ACP mode, an untested agent", async () => {
  await using home = await tempHome();
  const PATH = await fakeClis(home, { gemini: "0.60.0\n", "my-agent": "whatever\n" });
  await home.writeConfig({
    worker: "gem",
    fallback: ["ghost"],
    workers: {
      gem: { acp: ["gemini", "--acp"] },
      mine: { acp: ["my-agent", "--acp"] },
      ghost: { acp: ["ghost-agent"] },
    },
  });
  const sys = testSys({ stateDir: home.stateDir, env: home.env({ PATH }) });
  const checks = await runDoctor(sys, { backends: REAL_BACKENDS });
  const worker = (name: string) => checks.find((c) => c.check === "worker" && c.worker === name);
  assert.match(
    worker("gem")!.message,
    /^ACP agent `gemini --acp`, found at .*\/bin\/gemini · in use: worker/,
  );
  const gem = versionOf(checks, "gem")!;
  assert.equal(gem.status, "warn");
  assert.match(
    gem.message,
    /^0\.60\.0 is older than the versions Pitroom is tested with \(0\.61\.0\)/,
  );
  assert.equal(gem.hint, "npm i -g @google/gemini-cli@0.61.0");
  // An agent Pitroom does not know is never run to ask its version (it may wait on stdin).
  const mine = versionOf(checks, "mine")!;
  assert.equal(mine.status, "warn");
  assert.match(mine.message, /an ACP agent Pitroom has not been tested with/);
  assert.equal(worker("ghost")!.status, "warn");
  assert.equal(worker("ghost")!.message, "not installed");
  const chain = checks.find((c) => c.check === "chain" && c.worker === "ghost");
  assert.match(chain?.message ?? "", /"fallback" names ghost, which is not installed/);
});
