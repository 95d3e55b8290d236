/**
 * What a sandboxed worker cannot see: Pitroom's state dir (the MCP token, other runs' records,
 * the history, the dashboard's record) and config file, the home folder's credentials and the
 * other worker CLIs' logins (its own stays), and what the config's `sandbox.hide` adds; and what
 * it still needs: the guard, its private folder, its own tree, `sandbox.show`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { renderReport } from "../../src/cli/report.ts";
import { createEngine } from "../../src/engine/mod.ts";
import { exists } from "../../src/sys/fs.ts";
import { fakeBackend } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { statePaths } from "../../src/store/paths.ts";
import { sandboxWorld } from "./_world.ts";

/** Files a hostile worker would go for, relative to the home folder, and their contents. */
const CREDENTIALS: Record<string, string> = {
  ".ssh/id_ed25519": "ssh-private-key-secret",
  ".aws/credentials": "aws-credentials-secret",
  ".config/gh/hosts.yml": "gh-token-secret",
  ".netrc": "netrc-password-secret",
  ".docker/config.json": "docker-auth-secret",
  ".kube/config": "kube-token-secret",
  ".npmrc": "npm-token-secret",
  ".git-credentials": "git-credentials-secret",
  ".codex/auth.json": "codex-login-secret",
  ".claude/.credentials.json": "claude-login-secret",
  ".claude.json": "claude-json-secret",
  ".gemini/oauth_creds.json": "gemini-login-secret",
};

/** The fake worker is opencode: its own login stays readable. */
const OWN_LOGIN = ".local/share/opencode/auth.json";

async function writeAll(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
}

Deno.test("a sandboxed worker reads nothing of Pitroom's state dir but the guard, and its own private folder", async () => {
  await using w = await sandboxWorld();
  const paths = statePaths(w.state);
  await Deno.writeTextFile(join(w.state, "mcp-token"), "mcp-token-secret\n", { mode: 0o600 });
  await Deno.writeTextFile(join(w.state, "dash.json"), '{"secret":"dash-secret"}\n');
  // An older state dir and config at the default places, where a Pitroom started without its
  // recursion marker would look.
  await writeAll(w.home, {
    ".local/state/pitroom/mcp-token": "default-state-secret",
    ".config/pitroom/config.json":
      '{"notifyCommand":"curl https://hooks.example/default-config-secret"}',
  });
  const first = await w.run("read", [{ answer: "the first run's answer: first-run-secret" }]);
  assert.equal(first.outcome, "ok", first.message);
  const seen = join(w.marks, "seen.txt");
  const record = await w.run("write", [
    { run: `cat '${join(w.state, "mcp-token")}' >> '${seen}' 2>&1` },
    { run: `cat '${paths.run(first.id).record}' >> '${seen}' 2>&1` },
    { run: `cat '${join(w.state, "dash.json")}' '${w.sys.configPath}' >> '${seen}' 2>&1` },
    { run: `grep -r secret '${w.state}' >> '${seen}' 2>&1` },
    {
      run: `grep -r secret "$HOME/.local/state/pitroom" "$HOME/.config/pitroom" >> '${seen}' 2>&1`,
    },
    { run: `ls -a '${paths.runs}' > '${join(w.marks, "runs.txt")}' 2>&1` },
    { run: `ls '${paths.guard}/bin' > '${join(w.marks, "guard.txt")}' 2>&1` },
    { run: `echo x 2> '${join(w.marks, "guard-err.txt")}' > '${paths.guard}/bin/git'` },
    { run: `git status --short > '${join(w.marks, "git.txt")}' 2>&1` },
    { run: `echo private > "$TMPDIR/mine" && cat "$TMPDIR/mine" > '${join(w.marks, "tmp.txt")}'` },
    { answer: "done" },
  ]);
  assert.equal(record.outcome, "ok", record.message);
  assert.equal(record.attempts[0]?.sandbox, "bwrap");
  assert.equal(record.hidden, undefined, "Pitroom's own places are not counted as credentials");
  const text = await Deno.readTextFile(seen);
  for (
    const secret of [
      "mcp-token-secret",
      "first-run-secret",
      "dash-secret",
      "default-state-secret",
      "default-config-secret",
    ]
  ) {
    assert.ok(!text.includes(secret), `${secret} was read: ${text}`);
  }
  assert.match(text, /mcp-token: No such file/);
  // Only the run's own folder (its private folder) is there; no other run's.
  assert.deepEqual(
    (await Deno.readTextFile(join(w.marks, "runs.txt"))).trim().split("\n").sort(),
    [".", "..", record.id],
  );
  assert.match(await Deno.readTextFile(join(w.marks, "guard.txt")), /^git$/m);
  assert.match(await Deno.readTextFile(join(w.marks, "guard-err.txt")), /Read-only file system/);
  assert.equal(await Deno.readTextFile(join(w.marks, "git.txt")), "");
  assert.equal(await Deno.readTextFile(join(w.marks, "tmp.txt")), "private\n");
  // Outside the sandbox the state is whole.
  assert.equal(await Deno.readTextFile(join(w.state, "mcp-token")), "mcp-token-secret\n");
});

Deno.test("a sandboxed worker reads no credential of the home folder and no other CLI's login, but its own", async () => {
  await using w = await sandboxWorld();
  await writeAll(w.home, { ...CREDENTIALS, [OWN_LOGIN]: "opencode-own-login" });
  const seen = join(w.marks, "seen.txt");
  const files = Object.keys(CREDENTIALS).map((p) => `"$HOME/${p}"`).join(" ");
  const record = await w.run("write", [
    { run: `cat ${files} >> '${seen}' 2>&1; ls -a "$HOME/.ssh" "$HOME/.aws" >> '${seen}' 2>&1` },
    { run: `cat "$HOME/${OWN_LOGIN}" > '${join(w.marks, "own.txt")}' 2>&1` },
    { answer: "done" },
  ]);
  assert.equal(record.outcome, "ok", record.message);
  const text = await Deno.readTextFile(seen);
  for (const secret of Object.values(CREDENTIALS)) {
    assert.ok(!text.includes(secret), `${secret} was read: ${text}`);
  }
  assert.equal(await Deno.readTextFile(join(w.marks, "own.txt")), "opencode-own-login");
  assert.deepEqual(record.hidden?.credentials, {
    count: 12,
    examples: ["~/.ssh", "~/.config/gh", "~/.aws"],
  });
  assert.equal(record.hidden?.files.count, 0);
  assert.equal(record.notes, undefined, "what was hidden is no note");
  // The report says it in one line.
  assert.match(
    renderReport(record, Date.now()),
    /^hidden +12 credential paths \(~\/\.ssh, ~\/\.config\/gh, ~\/\.aws, \.\.\.\)$/m,
  );
  // The files are untouched.
  assert.equal(await Deno.readTextFile(join(w.home, ".ssh/id_ed25519")), "ssh-private-key-secret");
});

Deno.test("sandbox.hide hides more paths and tree names; sandbox.show shows a built-in one again", async () => {
  await using w = await sandboxWorld({
    sandbox: {
      writable: [],
      hide: ["~/notes", "*.sqlite"],
      show: ["~/.npmrc", ".env.local"],
    },
    files: { "a.txt": "one\n", "data/app.sqlite": "sqlite-secret\n", ".env.local": "local-env\n" },
  });
  // The marks folder is not writable here: the worker leaves its marks in its tree (write run).
  await writeAll(w.home, { "notes/plan.txt": "notes-secret", ".npmrc": "npm-shown" });
  const record = await w.run("write", [
    {
      run: `cat "$HOME/notes/plan.txt" "$HOME/.npmrc" data/app.sqlite .env.local > seen.txt 2>&1`,
    },
    { answer: "done" },
  ]);
  assert.equal(record.outcome, "ok", record.message);
  const text = await Deno.readTextFile(join(w.repo, "seen.txt"));
  assert.ok(!text.includes("notes-secret"), text);
  assert.ok(!text.includes("sqlite-secret"), text);
  assert.match(text, /npm-shown/);
  assert.match(text, /local-env/);
});

Deno.test("a state dir that holds the home folder cannot be hidden: the run is refused (exit 3), nothing starts", async () => {
  await using w = await sandboxWorld();
  await Deno.writeTextFile(join(w.state, "mcp-token"), "mcp-token-secret\n", { mode: 0o600 });
  const home = join(w.state, "home");
  await Deno.mkdir(home);
  const sys = testSys({ stateDir: w.state, cwd: w.repo, env: { HOME: home } });
  await Deno.writeTextFile(sys.configPath, JSON.stringify({ sandbox: "auto" }));
  const seen = join(w.repo, "seen.txt");
  const backend = fakeBackend(() => [
    { run: `cat '${join(w.state, "mcp-token")}' > '${seen}'` },
    { answer: "done" },
  ]);
  const engine = createEngine(sys, { backends: () => backend });
  const record = await engine.run({ task: "try", mode: "write", worker: "opencode" });
  assert.equal(record.exit, 3, record.message);
  assert.match(
    record.message ?? "",
    /Cannot hide Pitroom's state dir .* from the worker: it is \/, holds your home folder/,
  );
  assert.equal(await exists(seen), false, "the worker ran");
});
