import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import {
  envFileText,
  prepareWorkerEnv,
  REPO_ROOT,
  shellQuote,
  WORKER_BIN,
  writeEnvFile,
} from "../support/model_server/env_file.ts";

Deno.test("prepareWorkerEnv() creates the private dirs and puts the worker CLIs first on PATH", async () => {
  const home = await Deno.makeTempDir({ prefix: "ms-home-" });
  try {
    const env = await prepareWorkerEnv(home, "http://127.0.0.1:4321", {
      scenarios: ["read-answer", "edit-one"],
      path: `/usr/bin:${WORKER_BIN}:/bin`,
    });
    assertEquals(WORKER_BIN, join(REPO_ROOT, ".tools/workers/node_modules/.bin"));
    assertEquals(env.PATH, `${WORKER_BIN}:/usr/bin:/bin`);
    assertEquals(env.HOME, home);
    for (const name of ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"]) {
      assertEquals(env[name]?.startsWith(`${home}/`), true, name);
      assertEquals((await Deno.stat(env[name]!)).isDirectory, true, name);
    }
    assertEquals((await Deno.stat(env.TMPDIR!)).isDirectory, true);
    assertEquals(env.OPENCODE_DISABLE_MODELS_FETCH, "1");
    const config = JSON.parse(
      await Deno.readTextFile(join(env.XDG_CONFIG_HOME!, "opencode", "opencode.json")),
    );
    assertEquals(config.provider.fake.npm, "@ai-sdk/openai-compatible");
    assertEquals(config.provider.fake.options.baseURL, "http://127.0.0.1:4321/v1");
    assertEquals(Object.keys(config.provider.fake.models), [
      "edit-one",
      "missing",
      "read-answer",
      "scripted",
    ]);
    assertEquals(config.model, "fake/scripted");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the env file is valid shell that gives back every value exactly", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ms-env-" });
  try {
    const env = { PLAIN: "abc", QUOTED: `it's "x" $HOME \`y\``, SPACED: "a b\tc" };
    assertEquals(shellQuote("it's"), `'it'\\''s'`);
    assertEquals(envFileText({ B: "2", A: "1" }), "export A='1'\nexport B='2'\n");
    const file = join(dir, "env.sh");
    await writeEnvFile(file, env);
    const output = await new Deno.Command("bash", {
      args: ["-c", `source "$1" && printf '%s\\0' "$PLAIN" "$QUOTED" "$SPACED"`, "_", file],
      env: { PATH: "/usr/bin:/bin" },
      clearEnv: true,
      stdin: "null",
    }).output();
    assertEquals(output.code, 0);
    assertEquals(new TextDecoder().decode(output.stdout).split("\0").slice(0, 3), [
      env.PLAIN,
      env.QUOTED,
      env.SPACED,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
