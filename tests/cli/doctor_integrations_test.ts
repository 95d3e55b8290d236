/**
 * Doctor's integrations section, from the install record and Claude Code's plugin list: the
 * MCP registrations, the skills, and what the plugin plus `pitroom install` give twice.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { integrationChecks } from "../../src/cli/doctor_integrations.ts";
import { installPaths } from "../../src/cli/install_record.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("integrations: nothing installed says which command adds it", async () => {
  await using dir = await tempDir();
  const sys = testSys({ stateDir: join(dir.path, "state"), env: { HOME: dir.path } });
  const checks = await integrationChecks(sys);
  assert.deepEqual(checks.map((c) => [c.check, c.status, c.hint]), [
    ["mcp", "warn", "pitroom install --mcp"],
    ["skills", "skip", "pitroom install"],
  ]);
});

Deno.test("integrations: registrations and skills are listed, the plugin on top of them is a warning", async () => {
  await using dir = await tempDir();
  const stateDir = join(dir.path, "state");
  await Deno.mkdir(stateDir, { recursive: true });
  const skill = (name: string) => ({
    name,
    path: join(dir.path, ".claude", "skills", name),
    kind: "link",
    target: `/x/${name}`,
  });
  await Deno.writeTextFile(
    installPaths(stateDir).record,
    JSON.stringify({
      schemaVersion: 1,
      skills: [skill("using-pitroom"), skill("pitroom-crew")],
      mcp: [{
        client: "claude-code",
        name: "pitroom",
        config: join(dir.path, ".claude.json"),
        entry: { command: "pitroom", args: ["mcp"] },
      }],
    }),
  );
  await Deno.mkdir(join(dir.path, ".claude", "plugins"), { recursive: true });
  await Deno.writeTextFile(
    join(dir.path, ".claude", "plugins", "installed_plugins.json"),
    JSON.stringify({ version: 2, plugins: { "pitroom@pitroom": [{ scope: "user" }] } }),
  );
  const sys = testSys({ stateDir, env: { HOME: dir.path } });
  const checks = await integrationChecks(sys);
  assert.deepEqual(checks.map((c) => [c.check, c.status]), [
    ["mcp", "ok"],
    ["skills", "ok"],
    ["plugin", "warn"],
  ]);
  assert.match(checks[1]!.message, /^2 skills in .*\.claude\/skills$/);
  assert.match(
    checks[2]!.message,
    /installed twice in Claude Code: .* the MCP server and the skills/,
  );
});
