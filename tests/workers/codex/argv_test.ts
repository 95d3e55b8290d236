import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import { codexLaunch } from "../../../src/workers/codex/argv.ts";
import { parseCodexModels } from "../../../src/workers/codex/models.ts";
import type { RunSpec } from "../../../src/workers/types.ts";

const PROMPT = "Fix the bug in src/a.ts and explain --why";

function spec(extra: Partial<RunSpec> = {}): RunSpec {
  return {
    mode: "read",
    prompt: PROMPT,
    cwd: "/work/repo",
    privateDir: "/state/runs/x",
    web: false,
    baseEnv: { PATH: "/usr/bin", CODEX_HOME: "/home/u/.codex" },
    ...extra,
  };
}

const BYPASS = /dangerously|danger-full-access|bypass|yolo/;

Deno.test("codexLaunch() sends the prompt on stdin and reads it with `-`", () => {
  const launch = codexLaunch(spec());
  assert.equal(launch.stdin, PROMPT);
  assert.equal(launch.argv.at(-1), "-");
  assert.ok(!launch.argv.some((arg) => arg.includes("Fix the bug")));
  assert.deepEqual(launch.files, []);
  assert.equal(launch.cwd, "/work/repo");
});

Deno.test("codexLaunch() gives read mode the read-only sandbox and no web search", () => {
  const { argv } = codexLaunch(spec());
  assert.deepEqual(argv.slice(0, 5), ["codex", "exec", "--json", "-s", "read-only"]);
  assert.ok(argv.includes(`web_search="disabled"`));
  assert.ok(!argv.some((arg) => BYPASS.test(arg)));
});

Deno.test("codexLaunch() gives write and isolate modes workspace-write, never more", () => {
  for (const mode of ["write", "isolate"] as const) {
    const { argv } = codexLaunch(spec({ mode }));
    assert.equal(argv[argv.indexOf("-s") + 1], "workspace-write");
    assert.ok(!argv.includes("sandbox_workspace_write.network_access=true"));
    assert.ok(!argv.some((arg) => BYPASS.test(arg)));
  }
});

Deno.test("codexLaunch() sets approval policy never in every mode: an approval is refused at once", () => {
  for (const mode of ["read", "write", "isolate"] as const) {
    for (const web of [false, true]) {
      const { argv } = codexLaunch(spec({ mode, web }));
      assert.equal(argv[argv.indexOf(`approval_policy="never"`) - 1], "-c");
      assert.ok(argv.indexOf(`approval_policy="never"`) < argv.indexOf("-"));
    }
  }
});

Deno.test("codexLaunch() turns web on with live search and sandbox network in write mode", () => {
  const { argv } = codexLaunch(spec({ mode: "write", web: true }));
  assert.ok(argv.includes(`web_search="live"`));
  assert.ok(argv.includes("sandbox_workspace_write.network_access=true"));
});

Deno.test("codexLaunch() passes model, effort and resume with the options before `resume`", () => {
  const { argv } = codexLaunch(spec({ model: "gpt-5.5", effort: "high", sessionId: "t-1" }));
  assert.deepEqual(argv.slice(argv.indexOf("-m"), argv.indexOf("-m") + 2), ["-m", "gpt-5.5"]);
  assert.ok(argv.includes(`model_reasoning_effort="high"`));
  assert.deepEqual(argv.slice(-3), ["resume", "t-1", "-"]);
  assert.ok(argv.indexOf("-s") < argv.indexOf("resume"));
});

Deno.test("codexLaunch() keeps the user's CODEX_HOME and puts the guard shim first on PATH", () => {
  const { env } = codexLaunch(spec({ pathPrefix: ["/state/shim"] }));
  assert.equal(env.CODEX_HOME, "/home/u/.codex");
  assert.equal(env.PATH, "/state/shim:/usr/bin");
});

Deno.test("codexLaunch() runs the shell without a login profile, which would reset PATH", () => {
  for (const mode of ["read", "write", "isolate"] as const) {
    const { argv } = codexLaunch(spec({ mode }));
    assert.equal(argv[argv.indexOf("allow_login_shell=false") - 1], "-c");
  }
});

Deno.test("parseCodexModels() reads listed slugs and efforts from `codex debug models`", () => {
  const path = fromFileUrl(new URL("./testdata/debug-models.json", import.meta.url));
  assert.deepEqual(parseCodexModels(Deno.readTextFileSync(path)), [
    {
      id: "gpt-5.5",
      efforts: ["low", "medium", "high", "xhigh"],
      defaultEffort: "medium",
      source: "cli",
    },
  ]);
});
