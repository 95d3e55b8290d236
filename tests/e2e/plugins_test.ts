/**
 * The plugins through the real clients, against the scripted model server on loopback:
 * Claude Code started with the plugin (`--plugin-dir`) sends the session-start context (the
 * using-pitroom skill) in its first model request, and nothing of it when it runs inside a
 * Pitroom worker; Codex with the plugin installed from this repository's marketplace gets the same
 * context and the skills, and no context inside a worker or without `pitroom` on PATH; Gemini CLI
 * with the extension linked (`gemini extensions link`) loads the
 * extension and offers the pitroom MCP server's tools to its model.
 *
 * The model server's log keeps only the user's own words, so the requests' raw bodies are
 * tapped here, in front of the same in-process server.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createModelServer } from "../support/model_server/server.ts";
import { prepareWorkerEnv } from "../support/model_server/env_file.ts";
import { listScenarios } from "../support/model_server/scenario.ts";
import { moduleCacheEnv, pitroomArgv, REPO_ROOT } from "../support/pitroom.ts";
import { tempDir, tempRepo } from "../support/temp.ts";
import { MCP_TOOL_NAMES } from "../../src/server/mcp/tool_names.ts";

/** The scripted model server with every request body kept. */
async function tappedServer(scenarios: Record<string, unknown>) {
  const root = await tempDir("pitroom-plugins-");
  const dir = join(root.path, "scenarios");
  await Deno.mkdir(dir);
  for (const [name, s] of Object.entries(scenarios)) {
    await Deno.writeTextFile(join(dir, `${name}.json`), JSON.stringify(s));
  }
  const handler = createModelServer({ scenariosDir: dir });
  const bodies: { path: string; body: string }[] = [];
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen: () => {} },
    async (request) => {
      bodies.push({ path: new URL(request.url).pathname, body: await request.clone().text() });
      return await handler(request);
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const home = join(root.path, "home");
  const env = await prepareWorkerEnv(home, url, { scenarios: await listScenarios(dir) });
  // A `pitroom` on PATH (the hooks stay silent without one), running this checkout.
  const bin = join(root.path, "bin");
  await Deno.mkdir(bin);
  const argv = pitroomArgv().map((w) => `'${w}'`).join(" ");
  await Deno.writeTextFile(join(bin, "pitroom"), `#!/bin/sh\nexec ${argv} "$@"\n`, { mode: 0o755 });
  return {
    root: root.path,
    home,
    bodies,
    env: {
      ...env,
      ...moduleCacheEnv(),
      PATH: `${bin}:${env.PATH}`,
      PITROOM_STATE_DIR: join(root.path, "state"),
      PITROOM_CONFIG: join(root.path, "config.json"),
    } as Record<string, string>,
    async [Symbol.asyncDispose]() {
      handler.close();
      stop.abort();
      await server.finished;
      await root[Symbol.asyncDispose]();
    },
  };
}

async function run(
  cmd: string,
  args: string[],
  options: { env: Record<string, string>; cwd: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** The first line of using-pitroom's body, which the session-start hook prints. */
const CONTEXT_MARK = "Pitroom hands a task to a worker agent CLI";

Deno.test("Claude Code with the plugin gets the using-pitroom context at session start, and none inside a worker", async () => {
  await using s = await tappedServer({ hello: { turns: [{ answer: "Hello." }] } });
  await using repo = await tempRepo({ "README.md": "# app\n" });
  const claude = (extra: Record<string, string>) =>
    run("claude", [
      "-p",
      "--output-format",
      "json",
      "--model",
      "hello",
      "--plugin-dir",
      REPO_ROOT,
      "--",
      "Say hello.",
    ], { env: { ...s.env, ...extra }, cwd: repo.path });

  const plain = await claude({});
  assert.equal(plain.code, 0, plain.stderr + plain.stdout);
  assert.equal(JSON.parse(plain.stdout).result, "Hello.");
  const first = s.bodies.find((b) =>
    b.path.startsWith("/v1/messages") && b.body.includes('"tools"')
  );
  assert.ok(first, "no model request with tools");
  assert.ok(first.body.includes(CONTEXT_MARK), "the first request lacks the using-pitroom context");
  const skills = ["using-pitroom", "pitroom-driven-development", "pitroom-tdd"];
  for (const name of skills) assert.ok(first.body.includes(`pitroom:${name}`), `skill ${name}`);

  s.bodies.length = 0;
  const inside = await claude({ PITROOM_INSIDE_RUN: "20261201-120000-abcd" });
  assert.equal(inside.code, 0, inside.stderr + inside.stdout);
  const requests = s.bodies.filter((b) => b.path.startsWith("/v1/messages"));
  assert.ok(requests.length > 0);
  assert.ok(requests.every((b) => !b.body.includes(CONTEXT_MARK)), "context given inside a worker");
});

Deno.test("Claude Code with the plugin installed from the repository's marketplace gets the same context", async () => {
  await using s = await tappedServer({ hello: { turns: [{ answer: "Hello." }] } });
  await using repo = await tempRepo({ "README.md": "# app\n" });
  for (const args of [["marketplace", "add", REPO_ROOT], ["install", "pitroom@pitroom"]]) {
    const r = await run("claude", ["plugin", ...args], { env: s.env, cwd: repo.path });
    assert.equal(r.code, 0, r.stderr + r.stdout);
  }
  const r = await run("claude", [
    "-p",
    "--output-format",
    "json",
    "--model",
    "hello",
    "--",
    "Say hello.",
  ], { env: s.env, cwd: repo.path });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const first = s.bodies.find((b) =>
    b.path.startsWith("/v1/messages") && b.body.includes('"tools"')
  );
  assert.ok(first, "no model request with tools");
  assert.ok(first.body.includes(CONTEXT_MARK), "the first request lacks the using-pitroom context");
  assert.ok(first.body.includes("pitroom:pitroom-writing-plans"), "the skills are missing");
});

/**
 * Codex with the plugin installed from this repository's marketplace. The model server's codex
 * home turns plugins off (they cost a few seconds a run); this test turns them back on, and runs with `--dangerously-bypass-hook-trust` in place of trusting the hooks once in
 * Codex's UI.
 */
Deno.test("Codex with the plugin installed gets the using-pitroom context and the skills, and no context inside a worker or without pitroom", async () => {
  await using s = await tappedServer({ hello: { turns: [{ answer: "Hello." }] } });
  await using repo = await tempRepo({ "README.md": "# app\n" });
  const features = ["-c", "features.plugins=true"];
  const codex = (args: string[], extra: Record<string, string> = {}) =>
    run("codex", [...args, ...features], { env: { ...s.env, ...extra }, cwd: repo.path });
  for (
    const args of [["plugin", "marketplace", "add", REPO_ROOT], [
      "plugin",
      "add",
      "pitroom@pitroom",
    ]]
  ) {
    const r = await codex(args);
    assert.equal(r.code, 0, r.stderr + r.stdout);
  }
  const ask = async (extra: Record<string, string>) => {
    s.bodies.length = 0;
    const r = await codex([
      "exec",
      "--dangerously-bypass-hook-trust",
      "--json",
      "--skip-git-repo-check",
      "-m",
      "hello",
      "Say hello.",
    ], extra);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /"text":"Hello\."/);
    const first = s.bodies.find((b) => b.path.endsWith("/responses"));
    assert.ok(first, "no model request");
    return first.body;
  };
  const plain = await ask({});
  assert.ok(plain.includes(CONTEXT_MARK), "the first request lacks the using-pitroom context");
  for (const name of ["using-pitroom", "pitroom-driven-development", "pitroom-tdd"]) {
    assert.ok(plain.includes(name), `skill ${name}`);
  }
  const inside = await ask({ PITROOM_INSIDE_RUN: "20261201-120000-abcd" });
  assert.ok(!inside.includes(CONTEXT_MARK), "context given inside a worker");
  const bare = await ask({ PATH: s.env.PATH!.split(":").slice(1).join(":") });
  assert.ok(!bare.includes(CONTEXT_MARK), "context given without pitroom on PATH");
  assert.ok(bare.includes("pitroom-tdd"), "the skills are still there");
});

/** A line of plugins/GEMINI.md, the extension's context file. */
const GEMINI_MARK = "Before delegating, read the using-pitroom skill";

/**
 * Gemini CLI in a temp HOME with the extension linked, asked one question. Headless Gemini CLI
 * offers tools that need a confirmation (its own edit and shell tools, MCP tools) only under an
 * approval mode that allows them, so the run uses `--approval-mode yolo`; the model is scripted.
 */
async function geminiWithExtension(): Promise<{ body: string; offered: string[] }> {
  await using s = await tappedServer({ hello: { turns: [{ answer: "Hello." }] } });
  await using repo = await tempRepo({ "README.md": "# app\n" });
  const env = { ...s.env, GEMINI_CLI_TRUST_WORKSPACE: "true" };
  const link = await run("gemini", ["extensions", "link", REPO_ROOT, "--consent"], {
    env,
    cwd: repo.path,
  });
  assert.equal(link.code, 0, link.stderr + link.stdout);
  const list = await run("gemini", ["extensions", "list"], { env, cwd: repo.path });
  assert.match(list.stdout + list.stderr, /pitroom/);
  const r = await run("gemini", [
    "-p",
    "Say hello.",
    "--output-format",
    "json",
    "-m",
    "hello",
    "--approval-mode",
    "yolo",
  ], { env, cwd: repo.path });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const tooled = s.bodies.find((b) =>
    b.path.includes(":streamGenerateContent") && b.body.includes("functionDeclarations")
  );
  assert.ok(tooled, "no model request with tools");
  const offered = [...tooled.body.matchAll(/"name"\s*:\s*"([^"]+)"/g)].map((m) => m[1]!);
  return { body: tooled.body, offered };
}

// One linked session shows both (each Gemini CLI session costs seconds).
Deno.test("Gemini CLI with the extension linked gets its context file and its skills, and every pitroom MCP tool is offered to its model", async () => {
  const { body, offered } = await geminiWithExtension();
  assert.ok(body.includes(GEMINI_MARK), "the extension's context file is not in the request");
  assert.ok(offered.includes("activate_skill"), `no skills tool: ${offered.join(", ")}`);
  for (const name of ["using-pitroom", "pitroom-driven-development", "pitroom-tdd"]) {
    assert.ok(body.includes(name), `skill ${name} is not offered`);
  }
  // Gemini CLI names an MCP tool mcp_<server>_<tool>.
  const missing = MCP_TOOL_NAMES.filter((t) => !offered.includes(`mcp_pitroom_${t}`));
  assert.deepEqual(missing, [], `offered: ${offered.join(", ")}`);
});
