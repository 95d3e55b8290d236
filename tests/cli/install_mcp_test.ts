/**
 * `pitroom install --mcp` / `uninstall --mcp` through the real program in temp HOMEs, with the
 * pinned Claude Code, Codex and Gemini CLIs doing their own registration, and Cursor's and
 * Claude Desktop's JSON files merged by Pitroom.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { WORKER_BIN } from "../support/model_server/env_file.ts";
import { moduleCacheEnv, pitroom, pitroomArgv } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";
import { parseClients, serverEntry } from "../../src/cli/install_mcp.ts";

/** What every client must run: the program under test, then `mcp`. */
const [COMMAND, ...REST] = pitroomArgv();
const ARGS = [...REST, "mcp"];
const ENV = moduleCacheEnv();

const CURSOR_TEXT = `{
  "mcpServers": {
    "github": { "command": "npx", "args": ["-y", "@x/github"], "env": { "N": 12345678901234567890 } }
  },
  "other": true
}
`;

async function world(options: { clis?: boolean; cursor?: string | null; desktop?: boolean } = {}) {
  const dir = await tempDir("pitroom-mcp-install-");
  const home = join(dir.path, "home");
  await Deno.mkdir(home, { recursive: true });
  const cursor = join(home, ".cursor", "mcp.json");
  const desktop = join(home, ".config", "Claude", "claude_desktop_config.json");
  if (options.cursor !== null) {
    await Deno.mkdir(join(home, ".cursor"));
    if (options.cursor !== undefined) await Deno.writeTextFile(cursor, options.cursor);
  }
  if (options.desktop ?? true) {
    await Deno.mkdir(join(home, ".config", "Claude"), { recursive: true });
  }
  const env = {
    HOME: home,
    PATH: `${options.clis === false ? "" : `${WORKER_BIN}:`}/usr/bin:/bin`,
    PITROOM_STATE_DIR: join(dir.path, "state"),
    GEMINI_CLI_NO_RELAUNCH: "true",
    ...ENV,
  };
  return {
    dir,
    home,
    cursor,
    desktop,
    claude: join(home, ".claude.json"),
    codex: join(home, ".codex", "config.toml"),
    gemini: join(home, ".gemini", "settings.json"),
    run: (...args: string[]) => pitroom(args, { env, cwd: home }),
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

async function json(path: string) {
  return JSON.parse(await Deno.readTextFile(path));
}

function ours(entry: { command?: string; args?: string[]; env?: Record<string, string> }) {
  assert.equal(entry.command, COMMAND);
  assert.deepEqual(entry.args, ARGS);
  // The registration carries the module cache (source mode), not the tests' own settings.
  assert.deepEqual(entry.env ?? {}, ENV.DENO_DIR === undefined ? {} : { DENO_DIR: ENV.DENO_DIR });
}

Deno.test("install --mcp registers pitroom in all five clients, once; uninstall takes out exactly that", async () => {
  await using w = await world({ cursor: CURSOR_TEXT });
  const first = await w.run("install", "--mcp", "--json");
  assert.equal(first.code, 0, first.stderr);
  const report = JSON.parse(first.stdout);
  assert.deepEqual(
    report.mcp.map((c: { client: string; action: string }) => [c.client, c.action]),
    [["claude-code", "added"], ["codex", "added"], ["gemini", "added"], ["cursor", "added"], [
      "claude-desktop",
      "added",
    ]],
  );
  assert.equal(report.settingsPath, undefined, "--mcp alone leaves Claude Code's settings alone");
  ours((await json(w.claude)).mcpServers.pitroom);
  ours((await json(w.gemini)).mcpServers.pitroom);
  ours((await json(w.desktop)).mcpServers.pitroom);
  const cursor = await json(w.cursor);
  ours(cursor.mcpServers.pitroom);
  // The user's other server keeps its bytes (a number JSON.parse would round included).
  assert.ok((await Deno.readTextFile(w.cursor)).includes(
    `"github": { "command": "npx", "args": ["-y", "@x/github"], "env": { "N": 12345678901234567890 } }`,
  ));
  assert.equal(await Deno.readTextFile(`${w.cursor}.pitroom-backup`), CURSOR_TEXT);
  const toml = await Deno.readTextFile(w.codex);
  assert.match(toml, /\[mcp_servers\.pitroom\]\ncommand = "[^"]+"\nargs = \[/);
  assert.ok(toml.includes(JSON.stringify(ARGS.at(-2))), toml);

  const files = [w.claude, w.codex, w.gemini, w.cursor, w.desktop];
  const bytes = await Promise.all(files.map((f) => Deno.readTextFile(f)));
  const second = await w.run("install", "--mcp");
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout.match(/already registered/g)?.length, 5, second.stdout);
  for (const [i, f] of files.entries()) {
    if (f !== w.claude) assert.equal(await Deno.readTextFile(f), bytes[i], f);
  }

  const out = await w.run("uninstall", "--mcp");
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout.match(/ removed /g)?.length, 5, out.stdout);
  assert.equal(await Deno.readTextFile(w.cursor), CURSOR_TEXT);
  await assert.rejects(Deno.stat(w.desktop), Deno.errors.NotFound, "the file it made goes");
  assert.equal((await json(w.claude)).mcpServers?.pitroom, undefined);
  assert.equal((await json(w.gemini)).mcpServers?.pitroom, undefined);
  assert.doesNotMatch(await Deno.readTextFile(w.codex), /pitroom/);
  const again = await w.run("uninstall", "--mcp");
  assert.match(again.stdout, /no client found or nothing recorded/);
});

Deno.test("a pitroom server of the user's own is kept, --force replaces it, uninstall gives it back", async () => {
  const theirs = `{"mcpServers": {"pitroom": {"command": "/opt/my-pitroom", "args": ["mcp"]}}}`;
  await using w = await world({ clis: false, cursor: theirs, desktop: false });
  const kept = await w.run("install", "--mcp", "--client", "cursor");
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stdout, /cursor +another "pitroom" server is registered: kept \(--force/);
  assert.equal(await Deno.readTextFile(w.cursor), theirs);

  const forced = await w.run("install", "--mcp", "--client", "cursor", "--force");
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /replaced your "pitroom" server/);
  ours((await json(w.cursor)).mcpServers.pitroom);
  assert.equal(await Deno.readTextFile(`${w.cursor}.pitroom-backup`), theirs);

  const back = await w.run("uninstall", "--mcp");
  assert.equal(back.code, 0, back.stderr);
  assert.match(back.stdout, /removed, your "pitroom" server given back/);
  assert.deepEqual(await json(w.cursor), JSON.parse(theirs));
});

Deno.test("codex: --force replaces the user's own entry through codex, uninstall adds it back", async () => {
  await using w = await world({ cursor: null, desktop: false });
  await Deno.mkdir(join(w.home, ".codex"));
  await Deno.writeTextFile(
    w.codex,
    `[mcp_servers.pitroom]\ncommand = "/opt/theirs"\nargs = ["serve"]\n`,
  );
  const forced = await w.run("install", "--mcp", "--client", "codex", "--force");
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /ran: codex mcp remove pitroom\n.*ran: codex mcp add pitroom/);
  assert.ok((await Deno.readTextFile(w.codex)).includes(JSON.stringify(COMMAND)));
  const back = await w.run("uninstall", "--mcp", "--client", "codex");
  assert.equal(back.code, 0, back.stderr);
  const toml = await Deno.readTextFile(w.codex);
  assert.match(toml, /command = "\/opt\/theirs"\nargs = \["serve"\]/);
});

Deno.test("a client config that is not valid JSON is refused in one line before anything is written", async () => {
  const broken = `{"mcpServers": {"a": 1,}}\n`;
  await using w = await world({ cursor: broken });
  const out = await w.run("install", "--mcp");
  assert.equal(out.code, 3);
  assert.equal(out.stdout, "");
  const lines = out.stderr.trim().split("\n").filter((l) => !/^\s*hint/i.test(l));
  assert.equal(lines.length, 1, out.stderr);
  assert.match(lines[0]!, /mcp\.json" is not valid JSON/);
  assert.equal(await Deno.readTextFile(w.cursor), broken);
  for (const f of [w.claude, w.codex, w.gemini, w.desktop, `${w.cursor}.pitroom-backup`]) {
    await assert.rejects(Deno.stat(f), Deno.errors.NotFound, f);
  }
  await assert.rejects(Deno.stat(join(w.dir.path, "state", "installed.json")));
});

Deno.test("install --mcp --dry-run prints the client commands and writes nothing; bad --client is a usage error", async () => {
  await using w = await world({ desktop: false });
  const out = await w.run("install", "--mcp", "--client", "codex,cursor", "--dry-run");
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /would run: codex mcp add pitroom --env DENO_DIR=\S+ -- \S+ run /);
  assert.match(out.stdout, /cursor +would register {2}\(/);
  assert.doesNotMatch(out.stdout, / registered/);
  assert.doesNotMatch(out.stdout, /claude-code|gemini/);
  for (const f of [w.codex, w.cursor]) await assert.rejects(Deno.stat(f), Deno.errors.NotFound);

  const short = await w.run("install", "--client", "claude,Codex-CLI", "--dry-run");
  assert.equal(short.code, 0, short.stderr);
  assert.match(short.stdout, /mcp +claude-code /);
  assert.match(short.stdout, /mcp +codex /);
  assert.deepEqual(parseClients(["claude,gemini-cli", "desktop", "claude-code"]), [
    "claude-code",
    "gemini",
    "claude-desktop",
  ]);
  for (const word of ["constructor", "__proto__", "toString"]) {
    assert.throws(() => parseClients([word]), /Unknown MCP client/);
  }

  const bad = await w.run("install", "--client", "vscode");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Unknown MCP client "vscode"/);
  const missing = await w.run("install", "--mcp", "--client", "claude-desktop");
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /Cannot register Pitroom in claude-desktop/);
});

Deno.test("the registered command is the program itself: the binary alone, or deno run with its module cache", () => {
  const sys = (self: string[], env: Record<string, string>) =>
    ({
      selfCommand: () => self,
      env: { get: (n: string) => env[n], toObject: () => env },
    }) as unknown as Parameters<typeof serverEntry>[0];
  assert.deepEqual(serverEntry(sys(["/usr/local/bin/pitroom"], { DENO_DIR: "/c" })), {
    command: "/usr/local/bin/pitroom",
    args: ["mcp"],
  });
  assert.deepEqual(serverEntry(sys(["/bin/deno", "run", "-P=pitroom", "/p/main.ts"], {})), {
    command: "/bin/deno",
    args: ["run", "-P=pitroom", "/p/main.ts", "mcp"],
  });
  assert.deepEqual(
    serverEntry(sys(["/bin/deno", "run", "/p/main.ts"], { DENO_DIR: "/c" })).env,
    { DENO_DIR: "/c" },
  );
});

Deno.test("uninstall --mcp leaves an entry the user changed since the install", async () => {
  await using w = await world({ clis: false, desktop: false });
  assert.equal((await w.run("install", "--mcp")).code, 0);
  const edited = JSON.parse(await Deno.readTextFile(w.cursor));
  edited.mcpServers.pitroom.args.push("--http");
  await Deno.writeTextFile(w.cursor, JSON.stringify(edited));
  const out = await w.run("uninstall", "--mcp");
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /cursor +changed since the install: left alone/);
  assert.deepEqual(await json(w.cursor), edited);
});
