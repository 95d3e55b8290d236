/**
 * The opencode launch description: prompt on stdin only, no bypass flag, the per-run agent and
 * its permission profile in the environment, and the profiles' rules under OpenCode's own
 * precedence (the last matching rule wins), checked with a model of its matcher.
 */
import assert from "node:assert/strict";
import type { Mode, RunSpec } from "../../../src/workers/types.ts";
import {
  launchOpencode,
  type PermissionBlock,
  permissionProfile,
} from "../../../src/workers/opencode/argv.ts";

function spec(extra: Partial<RunSpec> = {}): RunSpec {
  return {
    mode: "read",
    prompt: 'Explain "main" --auto; rm -rf / [[x]]',
    cwd: "/work/repo",
    privateDir: "/state/runs/1/private",
    web: false,
    baseEnv: { PATH: "/usr/bin", HOME: "/home/u", PWD: "/somewhere/else" },
    ...extra,
  };
}

/** OpenCode 1.18.33's wildcard: `*` any text, `?` one character, a trailing ` *` optional. */
function wildcard(pattern: string, text: string): boolean {
  let source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(
    /\?/g,
    ".",
  );
  if (source.endsWith(" .*")) source = `${source.slice(0, -3)}( .*)?`;
  return new RegExp(`^${source}$`, "s").test(text);
}

/** OpenCode's evaluation: rules flattened in config order, the last match wins, else ask. */
function evaluate(block: PermissionBlock, permission: string, pattern: string): string {
  let action = "ask";
  for (const [key, rule] of Object.entries(block)) {
    if (!wildcard(key, permission)) continue;
    const entries = typeof rule === "string" ? [["*", rule] as const] : Object.entries(rule);
    for (const [p, a] of entries) if (wildcard(p, pattern)) action = a;
  }
  return action;
}

Deno.test("launchOpencode() sends the prompt on stdin and never in argv", () => {
  const launch = launchOpencode(spec());
  assert.equal(launch.stdin, spec().prompt);
  for (const arg of launch.argv) assert.ok(!arg.includes("Explain"), `prompt in argv: ${arg}`);
  assert.deepEqual(launch.argv, [
    "opencode",
    "run",
    "--format",
    "json",
    "--print-logs",
    "--log-level",
    "WARN",
    "--agent",
    "pitroom-read",
  ]);
  assert.equal(launch.cwd, "/work/repo");
  assert.deepEqual(launch.files, []);
});

Deno.test("launchOpencode() passes model, variant and session, and no bypass or attach flag", () => {
  for (const mode of ["read", "write", "isolate"] as const) {
    const launch = launchOpencode(
      spec({ mode, model: "fake/m", effort: "high", sessionId: "ses_1", web: true }),
    );
    assert.deepEqual(launch.argv.slice(7), [
      "-m",
      "fake/m",
      "--variant",
      "high",
      "--session",
      "ses_1",
      "--agent",
      `pitroom-${mode}`,
    ]);
    for (const flag of ["--auto", "--yolo", "--dangerously-skip-permissions", "--attach"]) {
      assert.ok(!launch.argv.includes(flag), flag);
    }
  }
});

Deno.test("launchOpencode() sets the quiet env, the project dir in PWD and the shim PATH first", () => {
  const { env } = launchOpencode(spec({ pathPrefix: ["/state/shim"] }));
  assert.equal(env.PWD, "/work/repo", "opencode run takes its directory from PWD");
  assert.equal(env.PATH, "/state/shim:/usr/bin");
  assert.equal(env.HOME, "/home/u");
  assert.equal(env.OPENCODE_DISABLE_MODELS_FETCH, "1");
  assert.equal(env.OPENCODE_DISABLE_AUTOUPDATE, "1");
  assert.equal(env.OPENCODE_DISABLE_SHARE, "1");
});

Deno.test("launchOpencode() lays the agent over an inline config without losing it", () => {
  const base = JSON.stringify({ provider: { fake: { npm: "x" } }, permission: { bash: "allow" } });
  const { env } = launchOpencode(spec({ baseEnv: { OPENCODE_CONFIG_CONTENT: base } }));
  const config = JSON.parse(env.OPENCODE_CONFIG_CONTENT ?? "{}");
  assert.deepEqual(config.provider, { fake: { npm: "x" } });
  assert.deepEqual(
    config.agent["pitroom-read"].permission,
    permissionProfile("read", { web: false }),
  );
  assert.deepEqual(config.permission, permissionProfile("read", { web: false }), "replaced whole");
  assert.equal(config.agent["pitroom-read"].mode, "primary");
  assert.deepEqual(JSON.parse(env.OPENCODE_PERMISSION ?? "{}"), config.permission);
});

Deno.test("permissionProfile() never asks and names every permission OpenCode defaults to ask", () => {
  for (const mode of ["read", "write", "isolate"] as Mode[]) {
    for (const web of [false, true]) {
      const block = permissionProfile(mode, { web });
      const actions = Object.values(block).flatMap((r) =>
        typeof r === "string" ? [r] : Object.values(r)
      );
      assert.ok(actions.every((a) => a === "allow" || a === "deny"), `${mode}: ${actions}`);
      for (const key of ["external_directory", "doom_loop", "task", "question", "webfetch"]) {
        assert.ok(key in block, `${mode} names ${key}`);
      }
      assert.equal(evaluate(block, "external_directory", "/etc/*"), "deny");
      assert.equal(evaluate(block, "doom_loop", "read"), "deny");
      assert.equal(evaluate(block, "task", "general"), "deny");
      assert.equal(evaluate(block, "webfetch", "https://x.dev"), web ? "allow" : "deny");
      assert.equal(evaluate(block, "read", "src/a.ts"), "allow");
      assert.equal(evaluate(block, "read", "config/.env"), "deny");
      assert.equal(evaluate(block, "some_mcp_tool", "*"), mode === "read" ? "deny" : "allow");
    }
  }
});

Deno.test("permissionProfile('read') allows read-only commands and denies every write", () => {
  const block = permissionProfile("read", { web: false });
  assert.equal(evaluate(block, "edit", "src/a.ts"), "deny");
  for (
    const command of [
      "ls",
      "ls -la src",
      "cat README.md",
      "rg -n foo src",
      "find . -name '*.ts'",
      "git status",
      "git log --oneline -5",
      "git diff HEAD~1",
      "sed -n 1,20p a.ts",
    ]
  ) assert.equal(evaluate(block, "bash", command), "allow", command);
  for (
    const command of [
      "touch x",
      "rm a",
      "cat a > b",
      "echo hi >> notes.txt",
      "find . -delete",
      "find . -exec rm {} ;",
      "sed -i s/a/b/ f",
      "git commit -m x",
      "git checkout main",
      "npm install",
      "rg --pre ./evil x",
      "git diff --output=patch",
    ]
  ) assert.equal(evaluate(block, "bash", command), "deny", command);
});

Deno.test("permissionProfile('write') allows edits and commands but not history or destruction", () => {
  for (const mode of ["write", "isolate"] as Mode[]) {
    const block = permissionProfile(mode, { web: false });
    assert.equal(evaluate(block, "edit", "src/a.ts"), "allow");
    assert.equal(evaluate(block, "edit", ".git/config"), "deny");
    for (
      const command of [
        "npm test",
        "touch x",
        "rm my-report.txt",
        "git status",
        "git diff",
        "mv a b",
      ]
    ) assert.equal(evaluate(block, "bash", command), "allow", command);
    for (
      const command of [
        "git commit -am x",
        "git -C . commit -m y",
        "git push origin main",
        "git reset --hard",
        "git rebase -i HEAD~2",
        "git checkout -- a.ts",
        "git branch -D old",
        "git stash",
        "git tag v1",
        "git add -A",
        "sudo rm x",
        "npm publish",
        "cargo publish",
        "rm -rf build",
        "rm -fr build",
        "rm a -r",
      ]
    ) assert.equal(evaluate(block, "bash", command), "deny", command);
  }
});
