/**
 * Filters and line endings through whole runs: a write run and its revert, an isolate run, its
 * apply and revert, and a read run's undo give back exactly the bytes of the user's files, and
 * leave the index, HEAD, refs and stash as they were. A tree with a submodule refuses -w.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunSpec } from "../../src/workers/types.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { engineWorld } from "../support/engine_world.ts";
import { git, tempRepo } from "../support/temp.ts";

const NB = "a\nOUTPUT user's run\nb\n";
const WIN = "one\r\ntwo (user)\r\n";

/** A repository with a clean filter, autocrlf=input, a stash, and files git would convert. */
async function setup(steps: (spec: RunSpec) => FakeStep[]) {
  const repo = await tempRepo({
    ".gitattributes": "nb.txt filter=strip\n",
    "nb.txt": "a\nb\n",
    "win.txt": "one\ntwo\n",
  });
  await git(repo.path, "config", "filter.strip.clean", "sed '/^OUTPUT/d'");
  await git(repo.path, "config", "core.autocrlf", "input");
  await Deno.writeTextFile(join(repo.path, "stashed.txt"), "stash me\n");
  await git(repo.path, "add", "stashed.txt");
  await git(repo.path, "stash", "push", "-q");
  await Deno.writeTextFile(join(repo.path, "nb.txt"), NB);
  await Deno.writeTextFile(join(repo.path, "win.txt"), WIN);
  await git(repo.path, "status", "--porcelain");
  return await engineWorld(repo, steps);
}

type World = Awaited<ReturnType<typeof setup>>;

async function start(t: World, mode: "read" | "write" | "isolate") {
  return await t.engine.run({
    task: "do the thing",
    mode,
    worker: "opencode",
    timeoutMs: 30_000,
  });
}

/** The user's files and everything git keeps for them. */
async function userState(repo: string) {
  return {
    nb: await Deno.readTextFile(join(repo, "nb.txt")),
    win: await Deno.readTextFile(join(repo, "win.txt")),
    index: await Deno.readFile(join(repo, ".git/index")),
    head: await git(repo, "rev-parse", "HEAD"),
    refs: await git(repo, "for-each-ref"),
    stash: await git(repo, "stash", "list"),
  };
}

const WORKER: FakeStep[] = [
  { writeFile: "nb.txt", content: "a\nOUTPUT worker\nb\nc\n" },
  { writeFile: "win.txt", content: "one\r\ntwo (user)\r\nthree\r\n" },
  { answer: "done" },
];

Deno.test("a write run's revert gives back the filtered and CRLF files byte for byte", async () => {
  await using t = await setup(() => WORKER);
  const before = await userState(t.repo.path);
  const record = await start(t, "write");
  assert.equal(record.exit, 0);
  assert.deepEqual(record.changes?.files.map((f) => f.path), ["nb.txt", "win.txt"]);
  await t.engine.revert(record.id);
  assert.deepEqual(await userState(t.repo.path), before);
});

Deno.test("an isolate run's copy, apply and revert keep the bytes of filtered and CRLF files", async () => {
  await using t = await setup(() => WORKER);
  const before = await userState(t.repo.path);
  const record = await start(t, "isolate");
  assert.equal(record.exit, 0);
  await t.engine.apply(record.id);
  assert.equal(await Deno.readTextFile(join(t.repo.path, "nb.txt")), "a\nOUTPUT worker\nb\nc\n");
  assert.equal(
    await Deno.readTextFile(join(t.repo.path, "win.txt")),
    "one\r\ntwo (user)\r\nthree\r\n",
  );
  await t.engine.revert(record.id);
  assert.deepEqual(await userState(t.repo.path), before);
});

Deno.test("a read run that rewrites a CRLF file and a filtered line is undone byte for byte", async () => {
  await using t = await setup(() => [
    { writeFile: "win.txt", content: "one\ntwo (user)\n" },
    { writeFile: "nb.txt", content: "a\nOUTPUT other\nb\n" },
    { answer: "done" },
  ]);
  // Without a sandbox, which would keep the tree read-only: this is Pitroom's own undo.
  await Deno.writeTextFile(t.sys.configPath, JSON.stringify({ sandbox: "off" }));
  const before = await userState(t.repo.path);
  const record = await start(t, "read");
  assert.equal(record.exit, 5);
  assert.deepEqual(await userState(t.repo.path), before);
});

Deno.test("a write run in a tree with an initialised submodule is refused, naming it", async () => {
  await using t = await setup(() => WORKER);
  const upstream = await tempRepo({ "lib.txt": "lib\n" });
  try {
    await git(
      t.repo.path,
      "-c",
      "protocol.file.allow=always",
      "submodule",
      "add",
      "-q",
      upstream.path,
      "lib",
    );
    const record = await start(t, "write");
    assert.equal(record.exit, 3);
    assert.match(record.message ?? "", /submodule.*"lib"/);
  } finally {
    await upstream[Symbol.asyncDispose]();
  }
});
