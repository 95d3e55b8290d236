/**
 * `pitroom self-check` from the program as shipped (`-P=pitroom`): it passes there, and each of
 * its checks fails when its thing is wrong: a wider permission set, a state dir that is a file,
 * a git that is too old.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { moduleCacheEnv, pitroom, REPO_ROOT } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";
import { EXPECTED_PERMISSIONS, permissionMismatches } from "../../src/sys/permissions.ts";
import { MIN_GIT, parseGitVersion } from "../../src/engine/setup/self_check.ts";

function env(dir: string, extra: Record<string, string> = {}) {
  return {
    HOME: dir,
    PATH: Deno.env.get("PATH") ?? "",
    PITROOM_STATE_DIR: join(dir, "state"),
    PITROOM_CONFIG: join(dir, "config.json"),
    ...extra,
  };
}

Deno.test("self-check passes under the compiled permission set, as JSON too", async () => {
  await using dir = await tempDir();
  const r = await pitroom(["self-check", "--json"], { env: env(dir.path), cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.ok, true);
  const assets = out.checks.filter((c: { check: string }) => c.check === "asset");
  assert.ok(assets.length >= 6, JSON.stringify(assets));
  assert.ok(assets.every((c: { ok: boolean }) => c.ok));
  assert.deepEqual(
    out.checks.map((c: { check: string }) => c.check).filter((c: string) => c !== "asset"),
    [
      "permissions",
      "state dir",
      "git",
    ],
  );
});

Deno.test("self-check fails with exit 3 on a wider permission set, a state dir it cannot write, an old git", async () => {
  await using dir = await tempDir();
  const wide = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", join(REPO_ROOT, "main.ts"), "self-check"],
    env: { NO_COLOR: "1", ...moduleCacheEnv(), ...env(dir.path) },
    clearEnv: true,
    cwd: dir.path,
  }).output();
  assert.equal(wide.code, 3);
  assert.match(
    new TextDecoder().decode(wide.stderr),
    /not the expected set: net \(any other host\): granted/,
  );

  await Deno.writeTextFile(join(dir.path, "file"), "");
  const state = await pitroom(["self-check"], {
    env: env(dir.path, { PITROOM_STATE_DIR: join(dir.path, "file", "state") }),
    cwd: dir.path,
  });
  assert.equal(state.code, 3);
  assert.match(state.stdout, /^error\s+state dir\s+cannot write to/m);

  const bin = join(dir.path, "bin");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(join(bin, "git"), "#!/bin/sh\necho 'git version 2.20.1'\n");
  await Deno.chmod(join(bin, "git"), 0o755);
  const old = await pitroom(["self-check"], {
    env: env(dir.path, { PATH: `${bin}:${Deno.env.get("PATH")}` }),
    cwd: dir.path,
  });
  assert.equal(old.code, 3);
  assert.match(old.stderr, /git 2\.20\.1 is older than 2\.25/);
});

Deno.test("the expected permission set is deno.json's pitroom set", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  const set = config.permissions.pitroom as Record<string, boolean | string[]>;
  const granted = new Map(EXPECTED_PERMISSIONS.filter((p) => p.granted).map((p) => [p.label, p]));
  for (const kind of ["read", "write", "run", "env", "sys"]) {
    assert.equal(set[kind] === true, granted.has(kind), kind);
  }
  assert.deepEqual(set.net, ["127.0.0.1"]);
  assert.ok(granted.has("net 127.0.0.1"));
  assert.equal(set.ffi, undefined);
  assert.deepEqual(permissionMismatches(() => "granted").length, 3);
});

Deno.test("git versions are read from `git --version`", () => {
  assert.deepEqual(parseGitVersion("git version 2.39.5\n"), [2, 39, 5]);
  assert.deepEqual(parseGitVersion("git version 2.45.1.windows.1"), [2, 45, 1]);
  assert.equal(parseGitVersion("command not found"), null);
  assert.deepEqual([...MIN_GIT], [2, 25]);
});
