/**
 * `./dev pitroom ARGS` runs the program from the checkout in the caller's directory: from a
 * project elsewhere (whose path has a space) `status` names that project, not the checkout, and
 * a relative `-d` is read from there too, also through a symbolic link to `dev`. `dev` itself
 * passes shellcheck.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { moduleCacheEnv, REPO_ROOT } from "../support/pitroom.ts";
import { git, tempDir } from "../support/temp.ts";

const DEV = join(REPO_ROOT, "dev");

async function dev(args: string[], cwd: string, stateDir: string, script = DEV) {
  const out = await new Deno.Command("bash", {
    args: [script, ...args],
    cwd,
    env: { ...moduleCacheEnv(), PITROOM_STATE_DIR: stateDir, NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("./dev pitroom runs in the caller's directory, not the checkout", async () => {
  await using home = await tempDir();
  const project = join(home.path, "my project");
  await Deno.mkdir(join(project, "sub"), { recursive: true });
  await git(project, "init", "-q");
  const state = join(home.path, "state");

  const version = await dev(["pitroom", "--version"], project, state);
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, /^pitroom \d+\.\d+\.\d+/);

  const status = await dev(["pitroom", "status"], join(project, "sub"), state);
  assert.equal(status.code, 0, status.stderr);
  // With no runs, status says so on stderr, naming the repository it looked in.
  assert.match(status.stderr, /No runs yet in this repository/);
  assert.ok(status.stderr.includes(`"${project}"`), status.stderr);
  assert.ok(!status.stderr.includes(`"${REPO_ROOT.replace(/\/$/, "")}"`), status.stderr);

  const scoped = await dev(["pitroom", "status", "-d", "my project"], home.path, state);
  assert.equal(scoped.code, 0, scoped.stderr);
  assert.ok(scoped.stderr.includes(`"${project}"`), scoped.stderr);

  // Called through a relative symbolic link in another folder (~/bin/pdev), it still finds the
  // checkout.
  await Deno.mkdir(join(home.path, "bin"));
  await Deno.symlink(relative(join(home.path, "bin"), DEV), join(home.path, "bin", "pdev"));
  const linked = await dev(["pitroom", "status"], project, state, join(home.path, "bin", "pdev"));
  assert.equal(linked.code, 0, linked.stderr);
  assert.ok(linked.stderr.includes(`"${project}"`), linked.stderr);
});

Deno.test("dev passes shellcheck", async () => {
  const found = await new Deno.Command("sh", { args: ["-c", "command -v shellcheck"] }).output();
  if (!found.success) {
    console.warn("shellcheck is not installed: skipped");
    return;
  }
  const out = await new Deno.Command("shellcheck", { args: [DEV] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stdout));
});
