/**
 * The shipped payload: `deno bundle` makes the same module `deno compile` embeds, and it runs
 * under the same permission set and V8 flags, lazily loaded commands included.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";
import { V8_FLAGS_ARG } from "../../src/sys/real.ts";

async function run(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), { args, env, stdin: "null", cwd: REPO_ROOT })
    .output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("the bundle runs with the compile permission set and V8 flags: version, help and a command loaded lazily", async () => {
  await using dir = await tempDir();
  const bundle = join(dir.path, "pitroom");
  const env = {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: dir.path,
    NO_COLOR: "1",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? "",
  };
  if (!env.DENO_DIR) delete (env as Record<string, string>).DENO_DIR;
  const built = await run([
    "run",
    "-P=pitroom",
    "--quiet",
    join(REPO_ROOT, "scripts/bundle.ts"),
    bundle,
  ], env);
  assert.equal(built.code, 0, built.stderr);
  const self = [
    "run",
    "--quiet",
    "--no-prompt",
    `--config=${join(REPO_ROOT, "deno.json")}`,
    "-P=pitroom",
    V8_FLAGS_ARG,
    join(bundle, "pitroom.js"),
  ];
  const version = await run([...self, "--version"], env);
  assert.equal(version.code, 0, version.stderr);
  assert.match(
    version.stdout,
    /^pitroom \d+\.\d+\.\d+ \([0-9a-f]{7,}(-dirty)?, built \d{4}-\d\d-\d\d\)$/m,
  );
  const status = await run([...self, "status", "--json"], {
    ...env,
    PITROOM_STATE_DIR: join(dir.path, "state"),
  });
  assert.equal(status.code, 0, status.stderr);
  assert.deepEqual(JSON.parse(status.stdout), []);
  const help = await run([...self, "help", "events"], env);
  assert.match(help.stdout, /^run\.finished$/m);
});
