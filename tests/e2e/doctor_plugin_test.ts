/**
 * Doctor's plugin check against what the real Claude Code CLI writes: the pitroom plugin
 * installed with `claude plugin marketplace add` and `claude plugin install` (from the
 * project's tracked files, as a clone from GitHub would give them) on top of an MCP
 * registration by `pitroom install` is reported as installed twice; disabled with
 * `claude plugin disable` it doubles nothing; uninstalled, the check is gone.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { integrationChecks } from "../../src/cli/doctor_integrations.ts";
import { installPaths } from "../../src/cli/install_record.ts";
import { REPO_ROOT } from "../support/pitroom.ts";
import { WORKER_BIN } from "../support/model_server/env_file.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

async function run(cmd: string, args: string[], env: Record<string, string>, cwd: string) {
  const out = await new Deno.Command(cmd, { args, env, cwd, clearEnv: true }).output();
  const dec = new TextDecoder();
  return { code: out.code, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

Deno.test("doctor sees the plugin the real claude CLI installed: twice with pitroom install, not when disabled", async () => {
  await using home = await tempDir("pitroom-plugin-home-");
  const env = {
    HOME: home.path,
    PATH: `${WORKER_BIN}:/usr/local/bin:/usr/bin:/bin`,
    NO_COLOR: "1",
    DISABLE_AUTOUPDATER: "1",
  };
  // The tracked files only: a local folder is copied whole, caches and all.
  const source = join(home.path, "pitroom");
  await Deno.mkdir(source);
  const tar = join(home.path, "pitroom.tar");
  const archived = await run(
    "git",
    ["-C", REPO_ROOT, "archive", "-o", tar, "HEAD"],
    env,
    home.path,
  );
  assert.equal(archived.code, 0, archived.text);
  assert.equal((await run("tar", ["-xf", tar, "-C", source], env, home.path)).code, 0);
  const claude = async (...args: string[]) => {
    const r = await run("claude", ["plugin", ...args], env, home.path);
    assert.equal(r.code, 0, `claude plugin ${args.join(" ")}: ${r.text}`);
  };
  await claude("marketplace", "add", source);
  await claude("install", "pitroom@pitroom");

  const stateDir = join(home.path, "state");
  await Deno.mkdir(stateDir);
  await Deno.writeTextFile(
    installPaths(stateDir).record,
    JSON.stringify({
      schemaVersion: 1,
      skills: [],
      mcp: [{
        client: "claude-code",
        name: "pitroom",
        config: join(home.path, ".claude.json"),
        entry: { command: "pitroom", args: ["mcp"] },
      }],
    }),
  );
  const sys = testSys({ stateDir, env: { HOME: home.path, CLAUDE_CONFIG_DIR: "" } });
  const plugin = async () => (await integrationChecks(sys)).find((c) => c.check === "plugin");

  const twice = await plugin();
  assert.equal(twice?.status, "warn");
  assert.match(twice?.message ?? "", /installed twice in Claude Code: .* the MCP server$/);

  await claude("disable", "pitroom@pitroom");
  const off = await plugin();
  assert.equal(off?.status, "ok");
  assert.match(off?.message ?? "", /installed in Claude Code but disabled \(pitroom@pitroom\)/);

  await claude("enable", "pitroom@pitroom");
  assert.equal((await plugin())?.status, "warn");

  await claude("uninstall", "pitroom@pitroom");
  assert.equal(await plugin(), undefined);
});
