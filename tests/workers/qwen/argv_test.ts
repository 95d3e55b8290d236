import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { launchQwen, qwenArgv, qwenState, systemSettings } from "../../../src/workers/qwen/argv.ts";
import type { RunSpec } from "../../../src/workers/types.ts";

const SPEC: RunSpec = {
  mode: "read",
  prompt: "Find the bug; do not run `rm -rf /`",
  cwd: "/repo",
  privateDir: "/private",
  web: false,
  baseEnv: { PATH: "/usr/bin", HOME: "/home/u", QWEN_CODE_UNATTENDED_RETRY: "1" },
  pathPrefix: ["/guard"],
};

/** No system settings file on this machine. */
const NONE = { readUserFile: () => null, platform: "linux" };

Deno.test("launchQwen() sends the prompt on stdin only, never in argv", () => {
  const launch = launchQwen(SPEC, NONE);
  assertEquals(launch.stdin, SPEC.prompt);
  ok(!launch.argv.some((a) => a.includes("Find the bug")));
  assertEquals(launch.argv.slice(0, 5), [
    "qwen",
    "--output-format",
    "stream-json",
    "--approval-mode",
    "default",
  ]);
});

Deno.test("launchQwen() puts the guard first on PATH, keeps one process and drops endless retries", () => {
  const { env, state } = launchQwen(SPEC, NONE);
  assertEquals(env.PATH, "/guard:/usr/bin");
  assertEquals(env.QWEN_CODE_NO_RELAUNCH, "true");
  assertEquals([env.QWEN_CODE_MEMORY_TEAM, env.QWEN_CODE_MEMORY_TEAM_SYNC], ["0", "0"]);
  assertEquals(env.QWEN_CODE_UNATTENDED_RETRY, undefined);
  assertEquals(state, ["/home/u/.qwen"]);
  assertEquals(qwenState({ QWEN_HOME: "/q" }), ["/q"]);
});

function excluded(argv: string[]): string[] {
  return argv.flatMap((a, i) => (a === "--exclude-tools" ? [argv[i + 1] ?? ""] : []));
}

Deno.test("qwenArgv() in read mode denies edits, the shell, agents and the web", () => {
  const argv = qwenArgv(SPEC);
  const out = excluded(argv);
  for (
    const tool of [
      "edit",
      "write_file",
      "run_shell_command",
      "agent",
      "enter_worktree",
      "web_fetch",
      "web_search",
    ]
  ) {
    ok(out.includes(tool), tool);
  }
  ok(!argv.includes("--allowed-tools"));
  ok(!argv.includes("yolo") && !argv.includes("auto") && !argv.includes("-y"));
});

Deno.test("qwenArgv() in write mode edits in place and runs the shell but never the floor's commands", () => {
  for (const mode of ["write", "isolate"] as const) {
    const argv = qwenArgv({ ...SPEC, mode, web: true, model: "qwen3.8-max", sessionId: "s-1" });
    assertEquals(argv[4], "auto-edit");
    ok(argv.join(" ").includes("--allowed-tools run_shell_command"));
    const out = excluded(argv);
    ok(out.includes("run_shell_command(git commit)"));
    ok(out.includes("run_shell_command(git push)"));
    ok(out.includes("run_shell_command(rm -rf)"));
    ok(!out.includes("edit") && !out.includes("web_fetch"));
    assertEquals(argv.slice(-4), ["-m", "qwen3.8-max", "--resume", "s-1"]);
  }
});

Deno.test("launchQwen() turns qwen's memory agent off in a private system settings layer", () => {
  const launch = launchQwen(SPEC, NONE);
  assertEquals(launch.env.QWEN_CODE_SYSTEM_SETTINGS_PATH, "/private/qwen-system-settings.json");
  assertEquals(launch.env.QWEN_CODE_SYSTEM_DEFAULTS_PATH, "/etc/qwen-code/system-defaults.json");
  assertEquals(launch.files.map((f) => f.path), ["/private/qwen-system-settings.json"]);
  assertEquals(JSON.parse(launch.files[0]!.content), {
    memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
    general: { preventSystemSleep: false },
  });
});

Deno.test("launchQwen() keeps the administrator's system settings under Pitroom's, and an effort", () => {
  const read = (path: string) =>
    path === "/etc/qwen/custom.json"
      ? '{ // the admin\'s\n "model": {"name": "m"}, "memory": {"enableTeamMemory": true} }'
      : null;
  const launch = launchQwen({
    ...SPEC,
    effort: "high",
    baseEnv: { ...SPEC.baseEnv, QWEN_CODE_SYSTEM_SETTINGS_PATH: "/etc/qwen/custom.json" },
  }, { readUserFile: read, platform: "linux" });
  assertEquals(launch.env.QWEN_CODE_SYSTEM_DEFAULTS_PATH, "/etc/qwen/system-defaults.json");
  assertEquals(JSON.parse(launch.files[0]!.content), {
    model: { name: "m", reasoningEffort: "high" },
    memory: {
      enableTeamMemory: true,
      enableManagedAutoMemory: false,
      enableManagedAutoDream: false,
    },
    general: { preventSystemSleep: false },
  });
});

Deno.test("launchQwen() leaves a system settings file it cannot read in charge", () => {
  assertEquals(systemSettings("{ not json"), null);
  assertEquals(systemSettings("[1, 2]"), null);
  const unreadable = launchQwen(SPEC, {
    readUserFile: () => {
      throw new Deno.errors.PermissionDenied("no");
    },
  });
  assertEquals(unreadable.files, []);
  assertEquals(unreadable.env.QWEN_CODE_SYSTEM_SETTINGS_PATH, undefined);
  // The user's own redirect stays when Pitroom's layer cannot be laid over it.
  const redirected = launchQwen({
    ...SPEC,
    baseEnv: { ...SPEC.baseEnv, QWEN_CODE_SYSTEM_SETTINGS_PATH: "/x/s.json" },
  }, { readUserFile: () => "{ broken" });
  assertEquals(redirected.env.QWEN_CODE_SYSTEM_SETTINGS_PATH, "/x/s.json");
});
