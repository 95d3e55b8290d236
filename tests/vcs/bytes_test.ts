/**
 * Exact bytes through every conversion git can make between a file on disk and its blob: clean
 * filters, `core.autocrlf`, `text` and `eol` attributes, `ident`, `working-tree-encoding`. For
 * each, a write run's revert, an isolate run's copy and apply, and a read run's undo give back
 * exactly the bytes that were on disk, and the user's index, HEAD, refs and stash stay as they were.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  applyChanges,
  copyRepo,
  diffSnapshots,
  findRepo,
  makeCopy,
  type RepoInfo,
  revert,
  snapshot,
  type StoreOptions,
} from "../../src/vcs/mod.ts";
import { gitDirFingerprint, put, sh, type TempDir, tempDir, testSys } from "./_helpers.ts";

/** A repository whose `path` holds bytes on disk that git's filtered form does not. */
interface Case {
  name: string;
  path: string;
  /** Config and attributes; the file is committed with `committed`. */
  setup(home: string, root: string): Promise<void>;
  committed: Uint8Array | string;
  /** What the user has on disk when the run starts. */
  user: Uint8Array | string;
  /** What the worker writes. */
  worker: Uint8Array | string;
  /** A worker edit git's filtered form cannot see (same blob after the clean filter). */
  hidden?: Uint8Array | string;
}

const utf16le = (text: string) => {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) out[i * 2] = text.charCodeAt(i);
  return out;
};

const CASES: Case[] = [
  {
    name: "a clean filter that drops lines",
    path: "nb.txt",
    async setup(home, root) {
      await sh(home, root, "config", "filter.strip.clean", "sed '/^OUTPUT/d'");
      await put(root, ".gitattributes", "nb.txt filter=strip\n");
    },
    committed: "a\nb\n",
    user: "a\nOUTPUT user\nb\n",
    worker: "a\nOUTPUT user\nb\nc (worker)\n",
    hidden: "a\nOUTPUT worker\nb\n",
  },
  {
    name: "core.autocrlf=input and a file saved with CRLF",
    path: "win.txt",
    setup: (home, root) => sh(home, root, "config", "core.autocrlf", "input").then(() => {}),
    committed: "one\ntwo\n",
    user: "one\r\ntwo (user)\r\n",
    worker: "one\r\ntwo (user)\r\nthree (worker)\r\n",
    hidden: "one\ntwo (user)\n",
  },
  {
    name: "core.autocrlf=true and a file with mixed line endings",
    path: "mixed.txt",
    setup: (home, root) => sh(home, root, "config", "core.autocrlf", "true").then(() => {}),
    committed: "one\ntwo\n",
    user: "one\r\ntwo (user)\nthree\r\n",
    worker: "one\r\ntwo (worker)\nthree\r\n",
    hidden: "one\ntwo (user)\nthree\n",
  },
  {
    name: "a text attribute and CRLF on disk",
    path: "t.txt",
    setup: (_home, root) => put(root, ".gitattributes", "*.txt text\n"),
    committed: "x\ny\n",
    user: "x\r\ny (user)\r\n",
    worker: "x\r\ny (worker)\r\n",
    hidden: "x\ny (user)\n",
  },
  {
    name: "an eol=lf attribute and CRLF on disk",
    path: "e.md",
    setup: (_home, root) => put(root, ".gitattributes", "*.md eol=lf\n"),
    committed: "# t\n",
    user: "# t\r\nuser\r\n",
    worker: "# t\r\nworker\r\n",
    hidden: "# t\nuser\n",
  },
  {
    name: "the ident attribute",
    path: "id.c",
    setup: (_home, root) => put(root, ".gitattributes", "*.c ident\n"),
    committed: "/* $Id$ */\n",
    user: "/* $Id: 0123456789abcdef0123456789abcdef01234567 $ */\nint user;\n",
    worker: "/* $Id: 0123456789abcdef0123456789abcdef01234567 $ */\nint worker;\n",
    hidden: "/* $Id: ffffffffffffffffffffffffffffffffffffffff $ */\nint user;\n",
  },
  {
    name: "a working-tree-encoding attribute",
    path: "w.txt",
    setup: (_home, root) => put(root, ".gitattributes", "w.txt working-tree-encoding=UTF-16LE\n"),
    committed: utf16le("base\n"),
    user: utf16le("user\r\n"),
    worker: utf16le("worker\r\n"),
  },
];

interface Setup extends AsyncDisposable {
  tmp: TempDir;
  home: string;
  root: string;
  repo: RepoInfo;
  store: StoreOptions & { indexFile: string };
  sys: ReturnType<typeof testSys>;
}

async function setup(c: Case): Promise<Setup> {
  const tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  await Deno.mkdir(home);
  await Deno.mkdir(root);
  await sh(home, root, "init", "-q", "-b", "main");
  await c.setup(home, root);
  await put(root, c.path, c.committed);
  await put(root, "other.txt", "1\n2\n3\n4\n5\n6\n7\n8\n");
  await sh(home, root, "add", "-A");
  await sh(home, root, "commit", "-q", "-m", "base");
  await put(root, "stashed.txt", "stash me\n");
  await sh(home, root, "add", "stashed.txt");
  await sh(home, root, "stash", "push", "-q", "-m", "keep");
  await put(root, c.path, c.user);
  // The user's index is fresh (as after `git status`), so its cached ids are git's filtered ones.
  await sh(home, root, "status", "--porcelain");
  const sys = testSys(home);
  const repo = await findRepo(sys, root);
  assert.ok(repo !== null);
  const state = join(tmp.path, "state");
  await Deno.mkdir(join(state, "run"), { recursive: true });
  return {
    tmp,
    home,
    root,
    repo,
    sys,
    store: { objectsDir: join(state, "objects"), indexFile: join(state, "run", "index") },
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

const bytes = (value: Uint8Array | string) =>
  typeof value === "string" ? new TextEncoder().encode(value) : value;

async function readBytes(root: string, path: string): Promise<Uint8Array> {
  return await Deno.readFile(join(root, path));
}

for (const c of CASES) {
  Deno.test(`revert() of a write run gives back the bytes on disk with ${c.name}`, async () => {
    await using s = await setup(c);
    const gitDir = await gitDirFingerprint(join(s.root, ".git"));
    const before = await snapshot(s.sys, s.repo, s.store);
    await put(s.root, c.path, c.worker);
    await put(s.root, "added.txt", "worker\n");
    const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
    await revert(s.sys, s.repo, { ...s.store, before, after });
    assert.deepStrictEqual(await readBytes(s.root, c.path), bytes(c.user));
    assert.deepStrictEqual(await gitDirFingerprint(join(s.root, ".git")), gitDir);
  });

  if (c.hidden !== undefined) {
    const hidden = c.hidden;
    Deno.test(`an edit git's filtered form hides is tracked and undone with ${c.name}`, async () => {
      await using s = await setup(c);
      const before = await snapshot(s.sys, s.repo, s.store);
      await put(s.root, c.path, hidden);
      const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
      const changes = await diffSnapshots(s.sys, s.repo, { ...s.store, before, after });
      assert.deepStrictEqual(changes.files.map((f) => f.path), [c.path]);
      await revert(s.sys, s.repo, { ...s.store, before, after });
      assert.deepStrictEqual(await readBytes(s.root, c.path), bytes(c.user));
    });
  }

  Deno.test(`an isolate copy holds the bytes on disk and apply writes the worker's with ${c.name}`, async () => {
    await using s = await setup(c);
    const gitDir = await gitDirFingerprint(join(s.root, ".git"));
    const before = await snapshot(s.sys, s.repo, s.store);
    const dest = join(s.tmp.path, "copy");
    await makeCopy(s.sys, s.repo, { objectsDir: s.store.objectsDir, dest, snapshot: before });
    assert.deepStrictEqual(await readBytes(dest, c.path), bytes(c.user));
    await put(dest, c.path, c.worker);
    const copy = copyRepo(dest, s.repo.objectFormat);
    const after = await snapshot(s.sys, copy, {
      objectsDir: s.store.objectsDir,
      indexFile: join(s.tmp.path, "state", "run", "copy-index"),
      base: before,
    });
    await applyChanges(s.sys, s.repo, {
      objectsDir: s.store.objectsDir,
      before,
      after: after.tree,
    });
    assert.deepStrictEqual(await readBytes(s.root, c.path), bytes(c.worker));
    // Reverting the applied run gives back the user's bytes again.
    await revert(s.sys, s.repo, { objectsDir: s.store.objectsDir, before, after: after.tree });
    assert.deepStrictEqual(await readBytes(s.root, c.path), bytes(c.user));
    assert.deepStrictEqual(await gitDirFingerprint(join(s.root, ".git")), gitDir);
  });

  Deno.test(`apply merges into a file the user edited since with ${c.name}`, async () => {
    await using s = await setup(c);
    const before = await snapshot(s.sys, s.repo, s.store);
    const dest = join(s.tmp.path, "copy");
    await makeCopy(s.sys, s.repo, { objectsDir: s.store.objectsDir, dest, snapshot: before });
    await put(dest, "other.txt", "1\n2\n3\n4\n5\n6\n7 (worker)\n8\n");
    const copy = copyRepo(dest, s.repo.objectFormat);
    const after = await snapshot(s.sys, copy, { objectsDir: s.store.objectsDir, base: before });
    await put(s.root, "other.txt", "1 (user)\n2\n3\n4\n5\n6\n7\n8\n");
    const report = await applyChanges(s.sys, s.repo, {
      objectsDir: s.store.objectsDir,
      before,
      after: after.tree,
    });
    assert.deepStrictEqual(report.merged, ["other.txt"]);
    assert.equal(
      await Deno.readTextFile(join(s.root, "other.txt")),
      "1 (user)\n2\n3\n4\n5\n6\n7 (worker)\n8\n",
    );
    assert.deepStrictEqual(await readBytes(s.root, c.path), bytes(c.user));
  });
}
