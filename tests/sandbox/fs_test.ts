/**
 * What a sandboxed worker can write: its tree (not in a read run) and its private folders, and
 * nothing else: not `.git`, not `/etc`, not a file in `$HOME`, not another repository, not the
 * real `/tmp`, and not through a link in its isolate copy. Without a sandbox, an isolate copy
 * with links leading out of it is refused unless links are allowed, and then named.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { exists } from "../../src/sys/fs.ts";
import { fakeBackend } from "../support/fake_backend.ts";
import { git } from "../support/temp.ts";
import { marker, sandboxWorld } from "./_world.ts";

async function read(path: string): Promise<string | null> {
  return await exists(path) ? await Deno.readTextFile(path) : null;
}

Deno.test("a sandboxed write run changes its tree and nothing outside it", async () => {
  await using w = await sandboxWorld();
  const tag = marker();
  const err = (name: string) => `2>> '${join(w.marks, name)}'`;
  const before = {
    config: await read(join(w.repo, ".git/config")),
    head: await read(join(w.repo, ".git/HEAD")),
    bashrc: await read(join(w.home, ".bashrc")),
    theirs: await read(join(w.other, "theirs.txt")),
  };
  const record = await w.run("write", [
    { writeFile: "a.txt", content: "worker\n" },
    { run: `printf '[alias]\\n\\tx = commit\\n' ${err("git")} >> .git/config` },
    { run: `printf 'ref: refs/heads/x\\n' ${err("git")} > .git/HEAD` },
    { run: `printf '#!/bin/sh\\n' ${err("git")} > .git/hooks/pre-commit` },
    { run: `printf x ${err("etc")} > /etc/pitroom-escape-${tag}` },
    { run: `printf 'planted\\n' ${err("home")} >> "$HOME/.bashrc"` },
    { run: `printf 'planted\\n' ${err("home")} > "$HOME/.profile"` },
    { run: `printf 'mine now\\n' ${err("other")} > '${join(w.other, "theirs.txt")}'` },
    { run: `printf x ${err("tmp")} > /tmp/pitroom-escape-${tag}` },
    { run: `printf x > "$TMPDIR/scratch" && echo ok > '${join(w.marks, "tmpdir")}'` },
    { answer: "done" },
  ]);
  assert.equal(record.outcome, "ok", record.message);
  assert.equal(record.attempts[0]?.sandbox, "bwrap");
  assert.deepEqual(record.changes?.files.map((f) => f.path), ["a.txt"]);
  assert.equal(await read(join(w.repo, "a.txt")), "worker\n");
  for (const name of ["git", "etc", "home", "other"]) {
    assert.match(await read(join(w.marks, name)) ?? "", /Read-only file system/, name);
  }
  assert.deepEqual({
    config: await read(join(w.repo, ".git/config")),
    head: await read(join(w.repo, ".git/HEAD")),
    bashrc: await read(join(w.home, ".bashrc")),
    theirs: await read(join(w.other, "theirs.txt")),
  }, before);
  assert.equal(await exists(join(w.repo, ".git/hooks/pre-commit")), false);
  assert.equal(await exists(join(w.home, ".profile")), false);
  assert.equal(await exists(`/etc/pitroom-escape-${tag}`), false);
  // The worker's /tmp is its own: the write worked there and is not in the real /tmp.
  assert.equal(await exists(`/tmp/pitroom-escape-${tag}`), false);
  assert.equal(await read(join(w.marks, "tmpdir")), "ok\n");
});

Deno.test("a sandboxed read run cannot change its tree at all", async () => {
  await using w = await sandboxWorld();
  const record = await w.run("read", [
    { run: `printf sneaky 2> '${join(w.marks, "err")}' > a.txt` },
    { answer: "done" },
  ]);
  assert.equal(record.outcome, "ok", record.message);
  assert.equal(await read(join(w.repo, "a.txt")), "one\n");
  assert.match(await read(join(w.marks, "err")) ?? "", /Read-only file system/);
});

/** A repository with tracked links out of it: into itself (absolute) and to another folder. */
async function linkedRepo(w: Awaited<ReturnType<typeof sandboxWorld>>): Promise<void> {
  await Deno.mkdir(join(w.repo, "d"));
  await Deno.writeTextFile(join(w.repo, "d/x.txt"), "user's x\n");
  await Deno.symlink(join(w.repo, "d"), join(w.repo, "abs"));
  await Deno.symlink(w.other, join(w.repo, "out"));
  await git(w.repo, "add", "-A");
  await git(w.repo, "commit", "-qm", "links");
}

const THROUGH_LINKS = (marks: string) => [
  { run: `printf 'worker\\n' 2>> '${join(marks, "err")}' > abs/x.txt` },
  { run: `printf 'worker\\n' 2>> '${join(marks, "err")}' > out/theirs.txt` },
  { answer: "done" },
];

Deno.test("in a sandboxed isolate run, writes through links out of the copy fail", async () => {
  await using w = await sandboxWorld();
  await linkedRepo(w);
  const record = await w.run("isolate", THROUGH_LINKS(w.marks));
  assert.equal(record.outcome, "ok", record.message);
  assert.equal(await read(join(w.repo, "d/x.txt")), "user's x\n");
  assert.equal(await read(join(w.other, "theirs.txt")), "another repository\n");
  const err = await read(join(w.marks, "err")) ?? "";
  // The link into the user's repository meets a read-only folder; the other one a folder of the
  // real /tmp, which the sandbox's private /tmp does not show.
  assert.match(err, /cannot create abs\/x\.txt: Read-only file system/);
  assert.match(
    err,
    /cannot create out\/theirs\.txt: (Read-only file system|Directory nonexistent)/,
  );
});

Deno.test("without a sandbox, an isolate copy with links out of it is refused (exit 3)", async () => {
  await using w = await sandboxWorld({ sandbox: "off" });
  await linkedRepo(w);
  const record = await w.run("isolate", THROUGH_LINKS(w.marks));
  assert.equal(record.outcome, "refused");
  assert.equal(record.exit, 3);
  assert.match(record.message ?? "", /links leading out of it: abs -> .*\/d, out -> /);
  assert.equal(await read(join(w.repo, "d/x.txt")), "user's x\n");
  assert.equal(await read(join(w.other, "theirs.txt")), "another repository\n");
});

Deno.test("without a sandbox and with links allowed, the report names the links", async () => {
  await using w = await sandboxWorld({ sandbox: "off" });
  await linkedRepo(w);
  const record = await w.run("isolate", [{ answer: "done" }], { allowLinks: true });
  assert.equal(record.outcome, "ok", record.message);
  assert.ok(
    record.notes?.some((n) => /^Links in the copy lead out of it .*: abs -> .*, out -> /.test(n)),
    JSON.stringify(record.notes),
  );
});

Deno.test('"sandbox": "required" refuses with exit 3 where no sandbox works', async () => {
  await using w = await sandboxWorld({ sandbox: "required" });
  // A bwrap first on PATH that cannot make a sandbox, as in a container without namespaces.
  const bin = join(w.home, "bin");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    join(bin, "bwrap"),
    "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n",
    { mode: 0o755 },
  );
  const env = w.sys.env.toObject();
  const sys = {
    ...w.sys,
    env: { ...w.sys.env, toObject: () => ({ ...env, PATH: `${bin}:${env.PATH}` }) },
  };
  const backend = fakeBackend(() => [{ writeFile: "a.txt", content: "x\n" }, { answer: "ok" }]);
  const engine = createEngine(sys, { backends: () => backend });
  const record = await engine.run({ task: "try", mode: "write", worker: "opencode" });
  assert.equal(record.outcome, "refused");
  assert.equal(record.exit, 3);
  assert.match(
    record.message ?? "",
    /Cannot sandbox the worker: bubblewrap cannot make a sandbox here: bwrap: No permissions/,
  );
  assert.equal(await read(join(w.repo, "a.txt")), "one\n");
});
