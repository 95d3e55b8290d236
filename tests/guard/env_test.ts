import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import { codexEnvKeys, scrubEnv, workerEnv } from "../../src/confine/env.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

const CALLER = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/u",
  LANG: "C.UTF-8",
  GIT_AUTHOR_NAME: "User",
  PITROOM_STATE_DIR: "/state",
  PITROOM_CONFIG: "/config.json",
  GIT_DIR: "/elsewhere/.git",
  GIT_CONFIG_PARAMETERS: "'core.hookspath'='/dev/null'",
  GITHUB_TOKEN: "t",
  GH_TOKEN: "t",
  MY_SERVICE_TOKEN: "t",
  DB_PASSWORD: "t",
  STRIPE_API_KEY: "t",
  SENTRY_AUTH_TOKEN: "t",
  NPM_CONFIG__AUTH: "t",
  AWS_SECRET_ACCESS_KEY: "t",
  SSH_AUTH_SOCK: "/tmp/agent",
  OPENAI_API_KEY: "o",
  CODEX_API_KEY: "c",
  ANTHROPIC_API_KEY: "a",
  CLAUDE_CODE_OAUTH_TOKEN: "a",
  GEMINI_API_KEY: "g",
  GOOGLE_APPLICATION_CREDENTIALS: "/g.json",
  OPENROUTER_API_KEY: "r",
  OPENCODE_CONFIG_CONTENT: "{}",
};

const SAFE = ["PATH", "HOME", "LANG", "GIT_AUTHOR_NAME", "OPENCODE_CONFIG_CONTENT"];

Deno.test("scrubEnv() keeps each worker's own provider credentials and drops the rest", () => {
  const kept: Record<string, string[]> = {
    codex: ["OPENAI_API_KEY", "CODEX_API_KEY"],
    claude: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"],
    gemini: ["GEMINI_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"],
    // opencode talks to whichever provider its model names: it keeps every `*_API_KEY`.
    opencode: [
      "OPENAI_API_KEY",
      "CODEX_API_KEY",
      "ANTHROPIC_API_KEY",
      "GEMINI_API_KEY",
      "OPENROUTER_API_KEY",
      "STRIPE_API_KEY",
    ],
    // qwen's `modelProviders` name their key variables freely (`envKey`): every `*_API_KEY` too,
    // and Google's for its Gemini and Vertex auth.
    qwen: [
      "OPENAI_API_KEY",
      "CODEX_API_KEY",
      "ANTHROPIC_API_KEY",
      "GEMINI_API_KEY",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "OPENROUTER_API_KEY",
      "STRIPE_API_KEY",
    ],
  };
  for (const worker of ["codex", "claude", "gemini", "opencode", "qwen"] as const) {
    const env = scrubEnv(CALLER, { worker });
    assert.deepEqual(Object.keys(env).sort(), [...SAFE, ...kept[worker]!].sort(), worker);
  }
});

Deno.test("scrubEnv() keeps what codex's config names as a provider's env_key", () => {
  const toml = `model_provider = "x"\n[model_providers.x]\nenv_key = "FAKE_API_KEY"\n` +
    `[model_providers.y]\n  env_key='OTHER_TOKEN'\n`;
  assert.deepEqual(codexEnvKeys(toml), ["FAKE_API_KEY", "OTHER_TOKEN"]);
  const env = scrubEnv({ FAKE_API_KEY: "f", STRIPE_API_KEY: "s" }, {
    worker: "codex",
    keep: codexEnvKeys(toml),
  });
  assert.deepEqual(env, { FAKE_API_KEY: "f" });
});

Deno.test("scrubEnv() keeps the cloud's credentials for claude on Bedrock only", () => {
  const aws = { AWS_ACCESS_KEY_ID: "i", AWS_SESSION_TOKEN: "s", AWS_REGION: "eu-west-1" };
  assert.deepEqual(scrubEnv(aws, { worker: "claude" }), { AWS_REGION: "eu-west-1" });
  assert.deepEqual(
    scrubEnv({ ...aws, CLAUDE_CODE_USE_BEDROCK: "1" }, { worker: "claude" }),
    { AWS_ACCESS_KEY_ID: "i", AWS_REGION: "eu-west-1", CLAUDE_CODE_USE_BEDROCK: "1" },
  );
});

Deno.test("workerEnv() adds the guard, its git settings and the recursion marker", async () => {
  await using state = await tempDir("pitroom-env-");
  const home = join(state.path, "home");
  await Deno.mkdir(join(home, ".codex"), { recursive: true });
  await Deno.writeTextFile(join(home, ".codex", "config.toml"), `env_key = "MY_KEY"\n`);
  const sys = testSys({ stateDir: state.path, env: { HOME: home, MY_KEY: "k" } });
  const { baseEnv, pathPrefix } = await workerEnv(sys, { worker: "codex", runId: "r-1" });
  assert.deepEqual(pathPrefix, [join(state.path, "guard", "bin")]);
  assert.equal(baseEnv.PITROOM_INSIDE_RUN, "r-1");
  assert.equal(baseEnv.PITROOM_STATE_DIR, undefined);
  assert.equal(baseEnv.MY_KEY, "k");
  const count = Number(baseEnv.GIT_CONFIG_COUNT);
  const config = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      baseEnv[`GIT_CONFIG_KEY_${i}`],
      baseEnv[`GIT_CONFIG_VALUE_${i}`],
    ]),
  );
  assert.equal(config["core.hooksPath"], join(state.path, "guard", "hooks"));
  assert.equal(config["credential.helper"], "");
  assert.ok((await Deno.stat(join(pathPrefix[0]!, "git"))).isFile);
});

Deno.test("pitroom refuses to run inside a worker: exit 3 and one line", async () => {
  await using state = await tempDir("pitroom-env-");
  for (const argv of [["--version"], ["run", "x"], ["__supervise", "20250101-000000-abcd"]]) {
    const sys = testSys({
      stateDir: state.path,
      env: { PITROOM_INSIDE_RUN: "20250101-000000-abcd" },
    });
    assert.equal(await main(argv, sys), 3, argv.join(" "));
    assert.equal(sys.stdoutText(), "");
    assert.equal(
      sys.stderrText(),
      'pitroom: A worker may not start Pitroom (this is run "20250101-000000-abcd")\n',
    );
  }
  const free = testSys({ stateDir: state.path, env: {} });
  assert.equal(await main(["--version"], free), 0);
});
