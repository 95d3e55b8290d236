import { deepStrictEqual as assertEquals, throws } from "node:assert/strict";
import { UsageError } from "../../../src/sys/errors.ts";
import { DENIED_COMMAND_PREFIXES, policyToml } from "../../../src/workers/gemini/argv.ts";
import { geminiBackend } from "../../../src/workers/gemini/mod.ts";
import type { RunSpec } from "../../../src/workers/types.ts";

const PROMPT = "Find the handler -- and --yolo is not a flag here";

function spec(fields: Partial<RunSpec> = {}): RunSpec {
  return {
    mode: "read",
    prompt: PROMPT,
    cwd: "/work/repo",
    privateDir: "/state/runs/x/attempt-1",
    web: false,
    baseEnv: { PATH: "/usr/bin", HOME: "/home/me" },
    ...fields,
  };
}

const BYPASS = /yolo|dangerous|bypass|--skip-trust/i;

Deno.test("launch() sends the prompt on stdin and never in argv", () => {
  const launch = geminiBackend.launch(spec());
  assertEquals(launch.stdin, PROMPT);
  assertEquals(launch.argv.some((arg) => arg.includes("Find the handler")), false);
  assertEquals(launch.argv.includes("-p") || launch.argv.includes("--prompt"), false);
});

Deno.test("launch() runs headless stream-json in the run's cwd with a policy file in the private dir", () => {
  const launch = geminiBackend.launch(spec({ model: "gemini-2.5-flash", sessionId: "abc-123" }));
  assertEquals(launch.argv, [
    "gemini",
    "--output-format",
    "stream-json",
    "--approval-mode",
    "default",
    "--policy",
    "/state/runs/x/attempt-1/gemini-policy.toml",
    "-m",
    "gemini-2.5-flash",
    "--resume",
    "abc-123",
  ]);
  assertEquals(launch.cwd, "/work/repo");
  assertEquals(launch.files.map((f) => f.path), ["/state/runs/x/attempt-1/gemini-policy.toml"]);
});

Deno.test("launch() never passes a bypass flag in any mode", () => {
  for (const mode of ["read", "write", "isolate"] as const) {
    for (const web of [false, true]) {
      const launch = geminiBackend.launch(spec({ mode, web }));
      assertEquals(launch.argv.filter((arg) => BYPASS.test(arg)), []);
      assertEquals(BYPASS.test(launch.files[0]?.content ?? ""), false);
      assertEquals(/ask_user/.test(launch.files[0]?.content ?? ""), false);
    }
  }
});

Deno.test("launch() uses auto_edit for write and isolate, default for read", () => {
  const modeOf = (mode: RunSpec["mode"]) => {
    const argv = geminiBackend.launch(spec({ mode })).argv;
    return argv[argv.indexOf("--approval-mode") + 1];
  };
  assertEquals([modeOf("read"), modeOf("write"), modeOf("isolate")], [
    "default",
    "auto_edit",
    "auto_edit",
  ]);
});

Deno.test("launch() keeps the base env, puts the shim first on PATH and sets the headless env", () => {
  const launch = geminiBackend.launch(spec({ pathPrefix: ["/shim"] }));
  assertEquals(launch.env.PATH, "/shim:/usr/bin");
  assertEquals(launch.env.HOME, "/home/me");
  assertEquals(launch.env.GEMINI_CLI_NO_RELAUNCH, "true");
  assertEquals(launch.env.GEMINI_CLI_TRUST_WORKSPACE, "true");
});

Deno.test("launch() refuses an effort on a model without levels and without a model", () => {
  throws(() => geminiBackend.launch(spec({ model: "auto", effort: "high" })), /no effort levels/);
  throws(
    () => geminiBackend.launch(spec({ baseEnv: {}, effort: "high" })),
    (error) => error instanceof UsageError && /needs a gemini model/.test(error.message),
  );
});

Deno.test("policyToml() denies edits, shell and web in read mode", () => {
  const toml = policyToml("read", false);
  assertEquals(
    toml.includes(
      'toolName = ["replace", "write_file", "run_shell_command", "activate_skill", "web_fetch", "google_web_search"]',
    ),
    true,
  );
  assertEquals(toml.includes('decision = "allow"'), false);
});

Deno.test("policyToml() allows web tools only when web is asked for", () => {
  const toml = policyToml("read", true);
  assertEquals(
    toml.includes('toolName = ["web_fetch", "google_web_search"]\ndecision = "allow"'),
    true,
  );
  assertEquals(
    policyToml("write", false).includes('"web_fetch", "google_web_search"]\ndecision = "deny"'),
    true,
  );
});

Deno.test("policyToml() allows the shell in write mode but denies history-changing commands", () => {
  const toml = policyToml("write", false);
  assertEquals(
    toml.includes('toolName = "run_shell_command"\ndecision = "allow"\npriority = 100'),
    true,
  );
  for (
    const prefix of [
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
    assertEquals(DENIED_COMMAND_PREFIXES.includes(prefix), true, prefix);
    assertEquals(toml.includes(JSON.stringify(prefix)), true, prefix);
  }
});
