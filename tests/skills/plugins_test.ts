/**
 * The plugin files: the Claude Code plugin and marketplace pass `claude plugin validate --strict`,
 * the Gemini CLI extension `gemini extensions validate`, the three manifests agree with each
 * other and with the program, every file they name exists, and the hook scripts stay silent
 * inside a worker and without `pitroom` on PATH. (The real clients loading them:
 * tests/e2e/plugins_test.ts.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../support/pitroom.ts";
import { WORKER_BIN } from "../support/model_server/env_file.ts";
import { tempDir } from "../support/temp.ts";
import { frontmatter } from "./_mentions.ts";

const read = async (path: string) => JSON.parse(await Deno.readTextFile(join(REPO_ROOT, path)));

async function run(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  stdin = "",
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(cmd, {
    args,
    cwd: REPO_ROOT,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  try {
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  } catch (error) {
    // A hook that stays silent exits without reading its input.
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

const BARE = "/usr/local/bin:/usr/bin:/bin";

Deno.test("claude plugin validate --strict passes the plugin and the marketplace, and fails a broken copy", async () => {
  await using home = await tempDir();
  const env = { HOME: home.path, PATH: `${WORKER_BIN}:${BARE}`, NO_COLOR: "1" };
  for (const target of [".claude-plugin/plugin.json", "."]) {
    const r = await run("claude", ["plugin", "validate", "--strict", "--json", target], env);
    const report = JSON.parse(r.stdout);
    assert.equal(report.success, true, `${target}: ${r.stdout}`);
    assert.equal(r.code, 0);
  }
  const broken = join(home.path, "broken");
  await Deno.mkdir(join(broken, ".claude-plugin"), { recursive: true });
  const manifest = await read(".claude-plugin/plugin.json");
  await Deno.writeTextFile(
    join(broken, ".claude-plugin", "plugin.json"),
    JSON.stringify({ ...manifest, skills: "../skills/" }),
  );
  const r = await run("claude", ["plugin", "validate", "--strict", "--json", broken], env);
  assert.equal(JSON.parse(r.stdout).success, false);
});

Deno.test("gemini extensions validate passes the extension", async () => {
  await using home = await tempDir();
  const env = { HOME: home.path, PATH: `${WORKER_BIN}:${BARE}`, NO_COLOR: "1" };
  const r = await run("gemini", ["extensions", "validate", REPO_ROOT], env);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout + r.stderr, /successfully validated/);
});

Deno.test("the Claude, Codex and Gemini manifests agree, serve `pitroom mcp`, and name files that exist", async () => {
  const deno = await read("deno.json");
  const claude = await read(".claude-plugin/plugin.json");
  const codex = await read(".codex-plugin/plugin.json");
  const gemini = await read("gemini-extension.json");
  const market = await read(".claude-plugin/marketplace.json");
  for (const m of [claude, codex, gemini]) {
    assert.equal(m.name, "pitroom");
    assert.equal(m.version, deno.version);
  }
  assert.deepEqual(
    market.plugins.map((p: { name: string; source: string }) => [p.name, p.source]),
    [
      ["pitroom", "./"],
    ],
  );
  const server = { command: "pitroom", args: ["mcp"] };
  assert.deepEqual(claude.mcpServers.pitroom, server);
  assert.deepEqual((await read(codex.mcpServers)).mcpServers.pitroom, server);
  assert.deepEqual(gemini.mcpServers.pitroom, server);
  for (
    const path of [claude.skills, codex.skills, claude.hooks, codex.hooks, gemini.contextFileName]
  ) {
    await Deno.stat(join(REPO_ROOT, path));
  }
  // Every hook runs one of the scripts in plugins/hooks/, which exists.
  for (
    const [file, root] of [[claude.hooks, "${CLAUDE_PLUGIN_ROOT}"], [codex.hooks, "${PLUGIN_ROOT}"]]
  ) {
    const hooks = (await read(file)).hooks as Record<string, { hooks: { command: string }[] }[]>;
    assert.deepEqual(Object.keys(hooks).sort(), ["PostToolUse", "SessionStart"]);
    for (const entry of Object.values(hooks).flat()) {
      for (const hook of entry.hooks) {
        const m = /^sh "(\$\{[A-Z_]+\})\/(plugins\/hooks\/[a-z-]+\.sh)"$/.exec(hook.command);
        assert.ok(m, hook.command);
        assert.equal(m[1], root);
        await Deno.stat(join(REPO_ROOT, m[2]!));
      }
    }
  }
});

/** A bin folder with a `pitroom` that prints its arguments and stdin. */
async function fakePitroom(dir: string): Promise<string> {
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(join(bin, "pitroom"), '#!/bin/sh\necho "pitroom $*"\ncat\n', {
    mode: 0o755,
  });
  return bin;
}

Deno.test("the session-start hook prints using-pitroom without its frontmatter, and nothing inside a worker or without pitroom", async () => {
  await using dir = await tempDir();
  const bin = await fakePitroom(dir.path);
  const script = join(REPO_ROOT, "plugins/hooks/session-start.sh");
  const skill = await Deno.readTextFile(join(REPO_ROOT, "skills/using-pitroom/SKILL.md"));
  const body = skill.slice(skill.indexOf("\n---\n") + 5);
  assert.deepEqual(frontmatter(skill).problems, []);

  const shown = await run("sh", [script], { PATH: `${bin}:${BARE}` });
  assert.equal(shown.code, 0, shown.stderr);
  assert.ok(shown.stdout.endsWith(body), "the skill's body is not what the hook prints");
  assert.ok(!shown.stdout.includes("description:"), "the frontmatter is printed");
  assert.ok(shown.stdout.length < 6_200, `${shown.stdout.length} characters`);

  for (const env of [{ PATH: BARE }, { PATH: `${bin}:${BARE}`, PITROOM_INSIDE_RUN: "x" }]) {
    const r = await run("sh", [script], env);
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, "", ""], JSON.stringify(env));
  }
});

Deno.test("the hook-card hook hands its input to `pitroom hook-card`, and is silent inside a worker or without pitroom", async () => {
  await using dir = await tempDir();
  const bin = await fakePitroom(dir.path);
  const script = join(REPO_ROOT, "plugins/hooks/hook-card.sh");
  const input = '{"tool_name":"Bash"}';
  const r = await run("sh", [script], { PATH: `${bin}:${BARE}` }, input);
  assert.deepEqual([r.code, r.stdout], [0, `pitroom hook-card\n${input}`]);
  for (const env of [{ PATH: BARE }, { PATH: `${bin}:${BARE}`, PITROOM_INSIDE_RUN: "x" }]) {
    const quiet = await run("sh", [script], env, input);
    assert.deepEqual([quiet.code, quiet.stdout, quiet.stderr], [0, "", ""], JSON.stringify(env));
  }
});
