/**
 * A worker CLI's first start runs once and alone: three launches at once on a fresh install run
 * the set-up one time, and the ones that waited find it done (OpenCode's database migration broke
 * when two first starts raced: "Failed query: CREATE TABLE").
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ensureFirstStart } from "../../src/engine/run/first_start.ts";
import type { Launch } from "../../src/workers/types.ts";
import { launchOpencode } from "../../src/workers/opencode/argv.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("three first starts at once run the set-up once; with the marker there, none", async () => {
  await using dir = await tempDir();
  const sys = testSys({ stateDir: join(dir.path, "state") });
  const marker = join(dir.path, "db");
  const count = join(dir.path, "count");
  const launch: Launch = {
    argv: ["true"],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    cwd: dir.path,
    files: [],
    stdin: null,
    firstStart: {
      marker,
      // Slow enough that the three overlap; each run would add a line.
      argv: ["sh", "-c", `echo ran >> '${count}'; sleep 0.3; touch '${marker}'`],
    },
  };
  await Promise.all([1, 2, 3].map(() => ensureFirstStart(sys, launch)));
  assert.equal(await Deno.readTextFile(count), "ran\n");
  await ensureFirstStart(sys, launch);
  assert.equal(await Deno.readTextFile(count), "ran\n");
});

Deno.test("an OpenCode launch names its database as the first-start marker", () => {
  const launch = launchOpencode({
    mode: "read",
    prompt: "x",
    cwd: "/repo",
    privateDir: "/tmp/p",
    web: false,
    baseEnv: { HOME: "/home/u", PATH: "/bin" },
  });
  assert.deepEqual(launch.firstStart, {
    marker: "/home/u/.local/share/opencode/opencode.db",
    argv: ["opencode", "models"],
  });
});

Deno.test("a set-up whose CLI is not installed leaves the launch to say so", async () => {
  await using dir = await tempDir();
  const sys = testSys({ stateDir: join(dir.path, "state") });
  await ensureFirstStart(sys, {
    argv: ["true"],
    env: { PATH: "/nonexistent" },
    cwd: dir.path,
    files: [],
    stdin: null,
    firstStart: { marker: join(dir.path, "db"), argv: ["pitroom-no-such-cli-here", "models"] },
  });
});
