import assert from "node:assert/strict";
import { join } from "node:path";
import { pitroomArgs, planInstall, planUninstall } from "../../src/cli/install.ts";
import { shellLine } from "../../src/cli/shell_words.ts";
import { moduleCacheEnv, pitroom, pitroomArgv } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";

/** How the program under test starts itself (what install writes into the settings). */
const SELF = shellLine(pitroomArgv());

const USER_STATUSLINE = `printf '[%s] mine' "$(cat | head -c 9)"`;

const USER_SETTINGS = {
  model: "opus",
  permissions: { allow: ["Bash(git status)"] },
  statusLine: { type: "command", command: USER_STATUSLINE, padding: 0 },
  hooks: {
    PostToolUse: [{
      matcher: "Edit|Write",
      hooks: [{ type: "command", command: 'prettier --write "$FILE"' }],
    }],
    Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
  },
};

async function home() {
  const dir = await tempDir("pitroom-claude-");
  const settings = join(dir.path, ".claude", "settings.json");
  return {
    dir,
    settings,
    env: (extra: Record<string, string> = {}) => ({
      HOME: dir.path,
      PATH: "/usr/bin:/bin",
      PITROOM_STATE_DIR: join(dir.path, "state"),
      ...extra,
    }),
    async write(value: unknown) {
      await Deno.mkdir(join(dir.path, ".claude"), { recursive: true });
      const text = typeof value === "string" ? value : JSON.stringify(value, null, 4) + "\n";
      await Deno.writeTextFile(settings, text);
      return text;
    },
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

async function run(env: Record<string, string>, ...args: string[]) {
  return await pitroom(args, { env, cwd: env.HOME! });
}

async function read(path: string) {
  return JSON.parse(await Deno.readTextFile(path));
}

Deno.test("pitroomArgs() recognises Pitroom's commands and nobody else's", () => {
  assert.deepEqual(pitroomArgs("pitroom statusline --then 'x y'", "statusline", "other"), [
    "--then",
    "x y",
  ]);
  assert.deepEqual(pitroomArgs("/opt/bin/pitroom hook-card", "hook-card", "x"), []);
  assert.deepEqual(pitroomArgs(`${SELF} statusline`, "statusline", SELF), []);
  assert.equal(pitroomArgs("my-statusline.sh", "statusline", SELF), null);
  assert.equal(pitroomArgs("ccusage statusline", "statusline", SELF), null);
});

Deno.test("planInstall() and planUninstall() are inverses on a user's settings", () => {
  const installed = planInstall(USER_SETTINGS, "pitroom", "s.json");
  assert.deepEqual(installed.changes.map((c) => c.action), ["wrapped", "added"]);
  const again = planInstall(installed.settings, "pitroom", "s.json");
  assert.deepEqual(again.changes.map((c) => c.action), ["unchanged", "unchanged"]);
  assert.deepEqual(again.settings, installed.settings);
  const removed = planUninstall(installed.settings, "pitroom", "s.json");
  assert.deepEqual(removed.changes.map((c) => c.action), ["restored", "removed"]);
  assert.deepEqual(removed.settings, USER_SETTINGS);
  const fresh = planUninstall(planInstall({}, "pitroom", "s.json").settings, "pitroom", "s.json");
  assert.deepEqual(fresh.settings, {});
});

Deno.test("pitroom install merges into the user's settings, backs them up once, and is idempotent", async () => {
  await using h = await home();
  const original = await h.write(USER_SETTINGS);
  const first = await run(h.env(), "install");
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /status line {2}added, yours kept first \(--then\)/);
  assert.match(first.stdout, /backup {6}.*settings\.json\.pitroom-backup/);
  assert.equal(await Deno.readTextFile(`${h.settings}.pitroom-backup`), original);

  const settings = await read(h.settings);
  assert.equal(settings.model, "opus");
  assert.deepEqual(settings.permissions, USER_SETTINGS.permissions);
  assert.deepEqual(settings.hooks.Stop, USER_SETTINGS.hooks.Stop);
  assert.equal(settings.statusLine.padding, 0);
  assert.equal(
    settings.statusLine.command,
    `${SELF} statusline --then '${USER_STATUSLINE.replace(/'/g, `'\\''`)}'`,
  );
  assert.deepEqual(settings.hooks.PostToolUse, [
    USER_SETTINGS.hooks.PostToolUse[0],
    { matcher: "Bash", hooks: [{ type: "command", command: `${SELF} hook-card`, timeout: 10 }] },
  ]);

  const bytes = await Deno.readTextFile(h.settings);
  const second = await run(h.env(), "install");
  assert.equal(second.code, 0);
  assert.match(second.stdout, /nothing to change/);
  assert.equal(await Deno.readTextFile(h.settings), bytes);

  // A later change does not replace the first backup.
  await h.write({ ...settings, statusLine: undefined });
  assert.equal((await run(h.env(), "install")).code, 0);
  assert.equal(await Deno.readTextFile(`${h.settings}.pitroom-backup`), original);
});

Deno.test("the installed status line runs the user's own first, then Pitroom's part", async () => {
  await using h = await home();
  await h.write(USER_SETTINGS);
  assert.equal((await run(h.env(), "install")).code, 0);
  const { statusLine } = await read(h.settings);
  const child = new Deno.Command("sh", {
    args: ["-c", statusLine.command],
    env: { ...moduleCacheEnv(), ...h.env() },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode('{"model":{"id":"claude-opus-5-5"}}'));
  await writer.close();
  const out = await child.output();
  assert.equal(
    new TextDecoder().decode(out.stdout),
    '[{"model":] mine · pitroom 0 running · $0.00 saved this week\n',
  );
});

Deno.test("pitroom uninstall gives the user's status line back and removes only Pitroom's hook", async () => {
  await using h = await home();
  await h.write(USER_SETTINGS);
  assert.equal((await run(h.env(), "install")).code, 0);
  const out = await run(h.env(), "uninstall");
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /status line {2}removed, yours given back/);
  assert.deepEqual(await read(h.settings), USER_SETTINGS);
  const again = await run(h.env(), "uninstall", "--json");
  assert.deepEqual(JSON.parse(again.stdout).changes, [
    { what: "statusLine", action: "absent" },
    { what: "hookCard", action: "absent" },
  ]);
  assert.equal(JSON.parse(again.stdout).changed, false);
});

Deno.test("pitroom install refuses a settings file that is not valid JSON and leaves it alone", async () => {
  await using h = await home();
  const broken = '{ "model": "opus", }\n';
  await h.write(broken);
  const out = await run(h.env(), "install");
  assert.equal(out.code, 3);
  assert.equal(out.stdout, "");
  assert.equal(out.stderr.trim().split("\n").filter((l) => !/^\s*hint|^hint/i.test(l)).length, 1);
  assert.match(out.stderr, /settings\.json" is not valid JSON/);
  assert.equal(await Deno.readTextFile(h.settings), broken);
  await assert.rejects(Deno.stat(`${h.settings}.pitroom-backup`), Deno.errors.NotFound);
});

Deno.test("pitroom install creates the file, follows CLAUDE_CONFIG_DIR and a symlink, and --dry-run writes nothing", async () => {
  await using h = await home();
  const configDir = join(h.dir.path, "claude-config");
  const env = h.env({ CLAUDE_CONFIG_DIR: configDir });
  const dry = await run(env, "install", "--dry-run", "--json");
  assert.equal(dry.code, 0, dry.stderr);
  const report = JSON.parse(dry.stdout);
  assert.deepEqual([report.settingsPath, report.dryRun, report.changed], [
    join(configDir, "settings.json"),
    true,
    true,
  ]);
  await assert.rejects(Deno.stat(configDir), Deno.errors.NotFound);
  const said = await run(env, "install", "--statusline", "--dry-run");
  assert.equal(said.code, 0, said.stderr);
  assert.match(said.stdout, /^status line {2}would add: /m);
  assert.doesNotMatch(said.stdout, / added/);
  await assert.rejects(Deno.stat(configDir), Deno.errors.NotFound);

  assert.equal((await run(env, "install")).code, 0);
  const created = await read(join(configDir, "settings.json"));
  assert.deepEqual(created.statusLine, { type: "command", command: `${SELF} statusline` });
  await assert.rejects(Deno.stat(join(configDir, "settings.json.pitroom-backup")));

  // A settings file that is a symlink (dotfiles) stays one; the target is edited.
  const target = join(h.dir.path, "dotfiles-settings.json");
  await Deno.writeTextFile(target, "{}\n");
  await Deno.mkdir(join(h.dir.path, ".claude"), { recursive: true });
  await Deno.symlink(target, h.settings);
  assert.equal((await run(h.env(), "install")).code, 0);
  assert.ok((await Deno.lstat(h.settings)).isSymlink);
  assert.ok((await read(target)).statusLine);
});
