import assert from "node:assert/strict";
import { join } from "node:path";
import { createRun } from "../../src/engine/request/create.ts";
import { executeRun } from "../../src/engine/run/lifecycle.ts";
import { findSecrets, isSecretPath } from "../../src/confine/secrets.ts";
import type { Mode } from "../../src/workers/types.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { git, tempDir, tempRepo } from "../support/temp.ts";

Deno.test("isSecretPath() knows env files, keys and credential files, not their examples", () => {
  for (const path of [".env", "app/.env.local", "certs/server.pem", "id_ed25519", ".npmrc"]) {
    assert.ok(isSecretPath(path), path);
  }
  for (const path of [".env.example", "id_ed25519.pub", "src/env.ts", "README.md", "key.ts"]) {
    assert.ok(!isSecretPath(path), path);
  }
  const found = findSecrets(["a.ts", "deploy/key.pem"], [".env", "node_modules/", ".aws/"]);
  assert.deepEqual(found.tracked, ["deploy/key.pem"]);
  assert.equal(found.any, true);
  assert.equal(findSecrets(["a.ts"], ["node_modules/", "dist/"]).any, false);
});

async function setup(steps: (marks: string) => FakeStep[]) {
  const state = await tempDir("pitroom-state-");
  const marks = await tempDir("pitroom-marks-");
  const repo = await tempRepo({
    "src/app.ts": "export const a = 1;\n",
    "deploy/key.pem": "-----BEGIN PRIVATE KEY-----\n",
    ".gitignore": ".env\n",
  });
  await Deno.writeTextFile(join(repo.path, ".env"), "TOKEN=hunter2\n");
  await Deno.writeTextFile(join(repo.path, "src/app.ts"), "export const a = 2; // mine\n");
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  // The fake worker leaves its marks outside its tree: a folder the sandbox lets it write.
  await Deno.writeTextFile(
    sys.configPath,
    JSON.stringify({ sandbox: { mode: "auto", writable: [marks.path] } }),
  );
  const backend = fakeBackend(() => steps(marks.path));
  return {
    sys,
    repo: repo.path,
    state: state.path,
    marks: marks.path,
    async run(mode: Mode = "read") {
      const record = await createRun(sys, {
        task: "look",
        mode,
        cwd: join(repo.path, "src"),
        chain: [{ worker: "opencode" }],
        timeoutMs: 30_000,
      });
      return await executeRun(sys, record.id, { maxParallel: 20, backends: () => backend });
    },
    async [Symbol.asyncDispose]() {
      await new Deno.Command("chmod", { args: ["-R", "u+w", state.path] }).output();
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
      await marks[Symbol.asyncDispose]();
    },
  };
}

async function views(stateDir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const repo of Deno.readDir(join(stateDir, "repos"))) {
    try {
      for await (const e of Deno.readDir(join(stateDir, "repos", repo.name, "views"))) {
        if (e.isDirectory) out.push(e.name);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return out;
}

Deno.test("a read run in a tree with secret files reads a shared write-protected view without them", async () => {
  await using t = await setup((marks) => [
    { run: `cat app.ts ../.env ../deploy/key.pem > '${marks}/seen.txt' 2>&1` },
    { run: `pwd > '${marks}/cwd.txt'` },
    { answer: "looked" },
  ]);
  const record = await t.run();
  assert.equal(record.state, "done", record.message);
  const seen = await Deno.readTextFile(join(t.marks, "seen.txt"));
  assert.match(seen, /export const a = 2; \/\/ mine/, "the user's uncommitted work is visible");
  assert.doesNotMatch(seen, /hunter2/, "the ignored .env is not");
  assert.doesNotMatch(seen, /PRIVATE KEY/, "the tracked key is not");
  const cwd = (await Deno.readTextFile(join(t.marks, "cwd.txt"))).trim();
  assert.ok(cwd.startsWith(t.state) && cwd.endsWith("/src"), cwd);
  const mode = (await Deno.stat(join(cwd, "app.ts"))).mode! & 0o777;
  assert.equal(mode & 0o222, 0, "the view is write-protected");
  assert.match(record.notes?.[0] ?? "", /kept out/);
  const first = await views(t.state);
  assert.equal(first.length, 1);
  const again = await t.run();
  assert.equal(again.state, "done");
  assert.deepEqual(await views(t.state), first, "the same state shares one view");
});

Deno.test("a read run that forces a write into its view is a violation and the view is removed (no sandbox)", async () => {
  await using t = await setup(() => [
    { run: "chmod u+w app.ts && echo changed > app.ts" },
    { answer: "done" },
  ]);
  // With the sandbox the write fails (tests/sandbox/).
  await Deno.writeTextFile(t.sys.configPath, JSON.stringify({ sandbox: "off" }));
  const record = await t.run();
  assert.equal(record.outcome, "read_only_violation");
  assert.equal(record.exit, 5);
  assert.deepEqual(await views(t.state), []);
  assert.equal(
    await Deno.readTextFile(join(t.repo, "src/app.ts")),
    "export const a = 2; // mine\n",
  );
});

Deno.test("a write run in a tree with secret files says it can read them", async () => {
  await using t = await setup(() => [{ answer: "done" }]);
  const record = await t.run("write");
  assert.equal(record.state, "done");
  assert.match(record.notes?.[0] ?? "", /secret-looking files.*-i/);
  await git(t.repo, "status");
});
