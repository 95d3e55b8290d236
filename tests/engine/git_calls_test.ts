/**
 * The git calls a run makes around a worker that does nothing, from the request at the front
 * door to the run's end: pinned per mode, so a change that adds a listing, a repeated rev-parse
 * or a second snapshot fails here (issue 13 item 6).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Runner } from "../../src/sys/mod.ts";
import { createEngine } from "../../src/engine/mod.ts";
import { fakeBackend } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

/** The git subcommand of an argv (after git's `-c name=value` options). */
function subcommand(argv: readonly string[]): string {
  let i = 1;
  while (argv[i] === "-c") i += 2;
  return argv.slice(i, i + 2).join(" ");
}

async function gitCalls(
  mode: "read" | "write",
  extra: Record<string, string> = {},
  answer = "Done",
  config?: Record<string, unknown>,
): Promise<string[]> {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n", ".gitignore": "build/\n" });
  await Deno.mkdir(join(repo.path, "build"));
  await Deno.writeTextFile(join(repo.path, "build", "out.log"), "ignored\n");
  await Deno.writeTextFile(join(repo.path, "new.txt"), "untracked\n");
  for (const [path, content] of Object.entries(extra)) {
    await Deno.writeTextFile(join(repo.path, path), content);
  }
  const base = testSys({ stateDir: state.path, cwd: repo.path });
  if (config !== undefined) {
    // `<tree>` in the config stands for the repository's folder.
    const text = JSON.stringify(config).replaceAll("<tree>", repo.path);
    await Deno.writeTextFile(base.configPath, text);
  }
  const calls: string[] = [];
  const runner: Runner = {
    ...base.runner,
    run(argv, options) {
      if (argv[0] === "git") calls.push(subcommand(argv));
      return base.runner.run(argv, options);
    },
    spawn: (argv, options) => base.runner.spawn(argv, options),
    kill: (pid, signal) => base.runner.kill(pid, signal),
  };
  const sys = { ...base, runner };
  const backend = fakeBackend(() => [{ tool: "read", target: "a.txt" }, { answer }]);
  const engine = createEngine(sys, { backends: () => backend });
  const done = await engine.run({
    task: "do nothing",
    mode,
    worker: "opencode",
    timeoutMs: 30_000,
  });
  assert.equal(done.outcome, "ok");
  return calls;
}

// The calls of a run's two snapshots and its preparation, sorted (some run side by side). The
// snapshot before, by the quick path: `git status` (HEAD comes in its branch header) and the
// config (the bare folders come from link counts). The secrets listing is the snapshot's own (no
// `ls-tree`).
const BEFORE = [
  "config -z",
  "rev-parse --path-format=absolute",
  "status --porcelain=v2",
];
// The snapshot after, by its quick path (vcs/quick_after.ts): `git status` over the seed of the
// snapshot before and the config again (HEAD is not read again); the kept index is never written,
// and nothing is hashed or built where every file is as the snapshot before found it.
const AFTER = ["status --porcelain=v2", "config -z"];
const SNAPSHOTS = [...BEFORE, ...AFTER].sort();
// In the sandbox, where a read run can write none of its tree, the tree is not snapshotted again
// after it (nor its kept index written), and its ignored files are not walked (nor kept): an
// attempt whose sandbox lets it write the tree walks and keeps them before it starts. (A later
// run of a tree whose files changed more than a few seconds before skips the hashing of both
// snapshot and ignored files through their memos, tests/vcs/quick_memo_test.ts and
// ignored_memo_test.ts; the files here were all just written, so every run here hashes them.)
const KEEP_IGNORED = "hash-object --no-filters";
const SANDBOXED_READ = [...BEFORE].sort();
// A write run also watches its tree: HEAD's folders (`ls-tree`) before the snapshot, the
// untracked ones after it (named by the snapshot's own `git status`: no `diff-tree`); and reads
// HEAD again when it is collected, to tell a commit or a branch switch meanwhile (the index and
// the stash are read from their files).
// The repository's root is found once (run/ahead.ts): for the door's checks (the run needs one,
// and no other write run may be working in it) and for the run.
const WRITE_RUN = [...SNAPSHOTS, "ls-tree -r", "rev-parse --verify"].sort();

Deno.test("a write run around a worker that does nothing makes 8 git calls, the repository found once", async () => {
  assert.deepEqual((await gitCalls("write")).sort(), WRITE_RUN);
});

Deno.test("a sandboxed read run makes the snapshot before's git calls only: its ignored files are neither walked nor kept", async () => {
  const read = (await gitCalls("read")).sort();
  assert.deepEqual(read, SANDBOXED_READ);
});

Deno.test("a read run whose sandbox lets it write a folder of its tree keeps its ignored files first, and is snapshotted after it", async () => {
  await using cache = await tempDir("pitroom-writable-");
  const inside = { sandbox: { mode: "auto", writable: ["build"] } };
  // A relative folder is left out (the config names folders by absolute or ~/ paths).
  assert.deepEqual((await gitCalls("read", {}, "Done", inside)).sort(), SANDBOXED_READ);
  const outside = { sandbox: { mode: "auto", writable: [cache.path] } };
  assert.deepEqual((await gitCalls("read", {}, "Done", outside)).sort(), SANDBOXED_READ);
  const tree = { sandbox: { mode: "auto", writable: ["<tree>/build"] } };
  assert.deepEqual(
    (await gitCalls("read", {}, "Done", tree)).sort(),
    [...SNAPSHOTS, KEEP_IGNORED].sort(),
  );
});

Deno.test("checking an answer's references lists no tree (the snapshot's list is known); a stated count adds two greps", async () => {
  const read = (await gitCalls("read")).sort();
  const cited = (await gitCalls("read", {}, "It is at a.txt:1 and new.txt:1.")).sort();
  assert.deepEqual(cited, read);
  const counted = (await gitCalls("read", {}, 'a.txt:1 holds 1 occurrence of "one".')).sort();
  const grep = "--literal-pathspecs grep";
  assert.deepEqual(counted, [...read, grep, grep].sort());
});

Deno.test("a sandboxed read run of a tree with a secret-looking file hides it and makes no more calls", async () => {
  const read = (await gitCalls("read", { ".env": "KEY=1\n" })).sort();
  // The same calls as a read run of a tree without one.
  assert.deepEqual(read, SANDBOXED_READ);
});

Deno.test("without a sandbox, a read run of a tree with a secret-looking file adds the view's calls and no more", async () => {
  const read = (await gitCalls("read", { ".env": "KEY=1\n" }, "Done", { sandbox: "off" })).sort();
  const view = [
    // The tree without the secret (treeWithout) and its checkout (makeCopy).
    "read-tree 0", // a tree id follows
    "update-index -z",
    "write-tree",
    "read-tree -u",
    // The check that the view is intact: its own conversion config, `add -A`, `write-tree`.
    "config -z",
    "add -A",
    "write-tree",
  ];
  const masked = read.map((call) => call.replace(/^read-tree [0-9a-f]{40}$/, "read-tree 0"));
  assert.deepEqual(masked, [...SNAPSHOTS, KEEP_IGNORED, ...view].sort());
});
