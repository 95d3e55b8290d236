import assert from "node:assert/strict";
import {
  claudeArgv,
  claudeLaunch,
  DENIED_SHELL,
  profileArgs,
} from "../../../src/workers/claude/argv.ts";
import { claudeBackend } from "../../../src/workers/claude/mod.ts";
import { parseVersion } from "../../../src/workers/_detect.ts";
import { claudeModels } from "../../../src/workers/claude/models.ts";
import type { RunSpec } from "../../../src/workers/types.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  assert.deepStrictEqual(actual, expected, message);

const PROMPT = "Find the handler --model opus and explain it";

function spec(fields: Partial<RunSpec> = {}): RunSpec {
  return {
    mode: "read",
    prompt: PROMPT,
    cwd: "/work/repo",
    privateDir: "/state/runs/r1/attempt-1",
    web: false,
    baseEnv: { PATH: "/usr/bin", HOME: "/home/u" },
    ...fields,
  };
}

function flagValues(argv: string[], flag: string): string[] {
  const at = argv.indexOf(flag);
  if (at < 0) return [];
  const values: string[] = [];
  for (const value of argv.slice(at + 1)) {
    if (value.startsWith("--")) break;
    values.push(value);
  }
  return values;
}

Deno.test("claudeLaunch() puts the prompt on stdin, never in argv", () => {
  for (const mode of ["read", "write", "isolate"] as const) {
    const launch = claudeLaunch(spec({ mode }));
    assertEquals(launch.stdin, PROMPT);
    assert(!launch.argv.some((arg) => arg.includes("Find the handler")));
    assertEquals(launch.argv.slice(0, 5), [
      "claude",
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
    ]);
    assertEquals(launch.cwd, "/work/repo");
  }
});

Deno.test("claudeArgv() passes model, effort and the session to resume", () => {
  const argv = claudeArgv(spec({ model: "sonnet", effort: "high", sessionId: "abc" }));
  assertEquals(flagValues(argv, "--model"), ["sonnet"]);
  assertEquals(flagValues(argv, "--effort"), ["high"]);
  assertEquals(flagValues(argv, "--resume"), ["abc"]);
  assertEquals(flagValues(claudeArgv(spec()), "--model"), []);
});

Deno.test("profileArgs() never uses a bypass mode", () => {
  for (const mode of ["read", "write", "isolate"] as const) {
    for (const web of [false, true]) {
      const text = profileArgs(mode, web).join(" ");
      assert(!/bypass|dangerously|--yolo/i.test(text), text);
      assertEquals(flagValues(profileArgs(mode, web), "--permission-mode").length, 1);
    }
  }
});

Deno.test("profileArgs() leaves no prompt to anybody: every ask is denied at once", () => {
  for (const mode of ["read", "write", "isolate"] as const) {
    for (const web of [false, true]) {
      assertEquals(flagValues(profileArgs(mode, web), "--permission-prompts"), ["none"]);
      assertEquals(flagValues(claudeArgv(spec({ mode, web })), "--permission-prompts"), ["none"]);
    }
  }
});

Deno.test("profileArgs() read offers read and search tools and read-only shell commands", () => {
  const args = profileArgs("read", false);
  assertEquals(flagValues(args, "--tools"), ["Read,Grep,Glob,Bash"]);
  assertEquals(flagValues(args, "--permission-mode"), ["dontAsk"]);
  const allowed = flagValues(args, "--allowedTools");
  assert(allowed.includes("Bash(git log:*)"));
  assert(!allowed.includes("Bash"));
  assert(!allowed.some((rule) => /WebFetch|Edit|Write|rm|find|sed/.test(rule)), allowed.join());
});

Deno.test("profileArgs() offers web tools only with web", () => {
  for (const mode of ["read", "write"] as const) {
    assert(!profileArgs(mode, false).join(" ").includes("Web"));
    const web = profileArgs(mode, true);
    assert(flagValues(web, "--tools")[0]?.includes("WebFetch,WebSearch"));
    assert(flagValues(web, "--allowedTools").includes("WebFetch"));
  }
});

Deno.test("profileArgs() write accepts edits, allows the shell, denies history changes", () => {
  const args = profileArgs("write", false);
  assertEquals(flagValues(args, "--permission-mode"), ["acceptEdits"]);
  assert(flagValues(args, "--tools")[0]?.includes("Edit"));
  assert(flagValues(args, "--allowedTools").includes("Bash"));
  const denied = flagValues(args, "--disallowedTools");
  for (
    const command of [
      "git commit",
      "git push",
      "git reset",
      "git rebase",
      "git checkout",
      "git branch -D",
      "git stash",
      "git tag",
      "sudo",
      "npm publish",
      "cargo publish",
      "rm -rf",
    ]
  ) {
    assert(denied.includes(`Bash(${command}:*)`), command);
  }
  assertEquals(denied.length, DENIED_SHELL.length);
  assertEquals(profileArgs("isolate", false), args);
});

Deno.test("claudeLaunch() keeps the user's config dir and leads PATH with the shim", () => {
  const launch = claudeLaunch(
    spec({
      pathPrefix: ["/shim"],
      baseEnv: { PATH: "/usr/bin", CLAUDE_CONFIG_DIR: "/home/u/.claude" },
    }),
  );
  assertEquals(launch.env.PATH, "/shim:/usr/bin");
  assertEquals(launch.env.CLAUDE_CONFIG_DIR, "/home/u/.claude");
  assertEquals(launch.env.CLAUDE_CODE_TMPDIR, "/state/runs/r1/attempt-1/tmp");
  assert(launch.files.every((file) => file.path.startsWith("/state/runs/r1/attempt-1/")));
});

Deno.test("claude models() lists aliases and ids with every effort level", async () => {
  const models = await claudeBackend.models(
    {
      run: () => Promise.reject(new Error("no runs")),
      spawn: () => {
        throw new Error("no spawns");
      },
      kill: () => {
        throw new Error("no kills");
      },
    },
    {},
  );
  assertEquals(models, claudeModels());
  assert(models.some((m) => m.id === "sonnet"));
  assert(models.every((m) => m.efforts.join() === "low,medium,high,xhigh,max"));
});

Deno.test("parseVersion() reads claude --version", () => {
  assertEquals(parseVersion("2.1.328 (Claude Code)\n"), "2.1.328");
  assertEquals(parseVersion("nothing"), null);
});

Deno.test("claudeLaunch() in Pitroom's sandbox turns claude's own sandbox off by flag settings", () => {
  for (const mode of ["read", "write", "isolate"] as const) {
    const launch = claudeLaunch(spec({ mode }));
    assertEquals(launch.inSandbox, [
      "claude",
      "--settings",
      JSON.stringify({ sandbox: { enabled: false } }),
      ...launch.argv.slice(1),
    ]);
    assert(!launch.argv.includes("--settings"));
  }
});
