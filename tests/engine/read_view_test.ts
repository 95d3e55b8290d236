import assert from "node:assert/strict";
import { join } from "node:path";
import { exists } from "../../src/sys/fs.ts";
import { findSecrets, isSecretPath } from "../../src/confine/secrets.ts";
import { createEngine } from "../../src/engine/mod.ts";
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
  const engine = createEngine(sys, { backends: () => backend });
  return {
    sys,
    repo: repo.path,
    state: state.path,
    marks: marks.path,
    async run(mode: Mode = "read", options: { allowSecrets?: boolean } = {}) {
      return await engine.run({
        task: "look",
        mode,
        dir: join(repo.path, "src"),
        worker: "opencode",
        timeoutMs: 30_000,
        ...(options.allowSecrets ? { allowSecrets: true } : {}),
      });
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

const LOOK = (marks: string): FakeStep[] => [
  { run: `cat app.ts ../.env ../deploy/key.pem > '${marks}/seen.txt' 2>&1` },
  { run: `pwd > '${marks}/cwd.txt'` },
  { answer: "looked" },
];

Deno.test("a sandboxed read run reads the tree itself, its secret files hidden, and makes no view", async () => {
  await using t = await setup(LOOK);
  const record = await t.run();
  assert.equal(record.state, "done", record.message);
  assert.equal(record.attempts[0]?.sandbox, "bwrap");
  const seen = await Deno.readTextFile(join(t.marks, "seen.txt"));
  assert.match(seen, /export const a = 2; \/\/ mine/, "the user's uncommitted work is visible");
  assert.doesNotMatch(seen, /hunter2/, "the ignored .env is not");
  assert.doesNotMatch(seen, /PRIVATE KEY/, "the tracked key is not");
  const cwd = (await Deno.readTextFile(join(t.marks, "cwd.txt"))).trim();
  assert.equal(cwd, join(await Deno.realPath(t.repo), "src"));
  assert.deepEqual(record.hidden?.files, { count: 2, examples: ["deploy/key.pem", ".env"] });
  assert.deepEqual(await views(t.state).catch(() => []), []);
  // The user's files are as they were.
  assert.equal(await Deno.readTextFile(join(t.repo, ".env")), "TOKEN=hunter2\n");
});

Deno.test("without a sandbox a read run in a tree with secret files reads a shared write-protected view without them", async () => {
  await using t = await setup(LOOK);
  await Deno.writeTextFile(t.sys.configPath, JSON.stringify({ sandbox: "off" }));
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

const WRITE_AND_LOOK = (marks: string): FakeStep[] => [
  { writeFile: "app.ts", content: "export const a = 3;\n" },
  { run: `cat ../.env ../deploy/key.pem > '${marks}/seen.txt' 2>&1` },
  { run: `echo planted 2> '${marks}/err.txt' > ../.env` },
  { answer: "done" },
];

Deno.test("a sandboxed write run edits its tree but cannot read or change its secret files", async () => {
  await using t = await setup(WRITE_AND_LOOK);
  const record = await t.run("write");
  assert.equal(record.state, "done", record.message);
  assert.deepEqual(record.changes?.files.map((f) => f.path), ["src/app.ts"]);
  assert.equal(await Deno.readTextFile(join(t.marks, "seen.txt")), "");
  assert.match(await Deno.readTextFile(join(t.marks, "err.txt")), /Read-only file system/);
  assert.equal(await Deno.readTextFile(join(t.repo, ".env")), "TOKEN=hunter2\n");
  assert.equal(record.hidden?.files.count, 2, JSON.stringify(record.hidden));
  await git(t.repo, "status");
});

Deno.test("a write run with secrets allowed reads them; without a sandbox the report says it could", async () => {
  await using t = await setup(WRITE_AND_LOOK);
  const allowed = await t.run("write", { allowSecrets: true });
  assert.equal(allowed.state, "done", allowed.message);
  assert.match(await Deno.readTextFile(join(t.marks, "seen.txt")), /hunter2[^]*PRIVATE KEY/);
  assert.match(
    allowed.notes?.[0] ?? "",
    /secret-looking files.*could read them \(secrets allowed\)/,
  );
  await Deno.writeTextFile(join(t.repo, ".env"), "TOKEN=hunter2\n");
  await Deno.writeTextFile(t.sys.configPath, JSON.stringify({ sandbox: "off" }));
  const bare = await t.run("write");
  assert.equal(bare.state, "done", bare.message);
  assert.match(
    bare.notes?.[0] ?? "",
    /secret-looking files.*without a sandbox.*an isolate run leaves/,
  );
});

Deno.test("a sandboxed isolate run's copy hides its tracked secret files", async () => {
  await using t = await setup((marks) => [
    { run: `cat ../deploy/key.pem ../.env > '${marks}/seen.txt' 2>&1` },
    { answer: "done" },
  ]);
  const record = await t.run("isolate");
  assert.equal(record.state, "done", record.message);
  const seen = await Deno.readTextFile(join(t.marks, "seen.txt"));
  assert.doesNotMatch(seen, /PRIVATE KEY/);
  assert.match(seen, /\.env: No such file/, "the ignored .env is not copied at all");
  assert.deepEqual(record.hidden?.files, { count: 1, examples: ["deploy/key.pem"] });
});

Deno.test("a sandboxed read run the config lets write a folder of its tree is compared after it: its write there is undone", async () => {
  await using t = await setup(() => [
    { run: "echo made > out/made.txt && echo changed > app.ts 2>/dev/null; true" },
    { answer: "done" },
  ]);
  await Deno.mkdir(join(t.repo, "src", "out"));
  await Deno.writeTextFile(
    t.sys.configPath,
    JSON.stringify({ sandbox: { mode: "auto", writable: [join(t.repo, "src", "out")] } }),
  );
  const record = await t.run();
  assert.equal(record.attempts[0]!.sandbox, "bwrap");
  assert.equal(record.outcome, "read_only_violation", record.message);
  assert.deepEqual(record.changes!.files.map((f) => f.path), ["src/out/made.txt"]);
  assert.equal(await exists(join(t.repo, "src", "out", "made.txt")), false);
  // The rest of the tree was read-only in the sandbox.
  assert.equal(
    await Deno.readTextFile(join(t.repo, "src/app.ts")),
    "export const a = 2; // mine\n",
  );
});
