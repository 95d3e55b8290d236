/**
 * File names that are not UTF-8 (`bad\xe9.txt`): paths are bytes end to end, so snapshot, diff,
 * revert and apply handle them like any other file. Deno cannot name such files, so the test
 * makes and reads them through the shell.
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
import { decodeLossless, encodeLossless } from "../../src/vcs/lossless.ts";
import { gitDirFingerprint, sh, type TempDir, tempDir, testSys } from "./_helpers.ts";

/** Runs a shell script in `cwd`; returns its stdout as text. */
async function shell(cwd: string, script: string): Promise<string> {
  const out = await new Deno.Command("sh", { args: ["-c", script], cwd }).output();
  if (!out.success) throw new Error(`sh failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** A shell word for a name with octal escapes (`bad\\351.txt`). */
const name = (octal: string) => `"$(printf '${octal}')"`;
const BAD = name("bad\\351.txt");
const NEW = name("new\\377.txt");
const GONE = name("gone\\351.txt");

/** Every file of the tree (not .git) with its content, names as escaped bytes. */
const listing = (root: string) =>
  shell(root, "for f in *; do printf '%s=' \"$f\" | od -An -c | tr -s ' '; cat \"$f\"; done");

interface Setup extends AsyncDisposable {
  tmp: TempDir;
  home: string;
  root: string;
  repo: RepoInfo;
  sys: ReturnType<typeof testSys>;
  store: StoreOptions & { indexFile: string };
}

async function setup(): Promise<Setup> {
  const tmp = await tempDir();
  const home = join(tmp.path, "home");
  const root = join(tmp.path, "repo");
  await Deno.mkdir(home);
  await Deno.mkdir(root);
  await sh(home, root, "init", "-q", "-b", "main");
  await shell(root, `printf '1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n' > ${BAD}; echo bye > ${GONE}`);
  await sh(home, root, "add", "-A");
  await sh(home, root, "commit", "-q", "-m", "base");
  await shell(root, `printf '1 (user)\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n' > ${BAD}`);
  const sys = testSys(home);
  const repo = await findRepo(sys, root);
  assert.ok(repo !== null);
  await Deno.mkdir(join(tmp.path, "state", "run"), { recursive: true });
  return {
    tmp,
    home,
    root,
    repo,
    sys,
    store: {
      objectsDir: join(tmp.path, "state", "objects"),
      indexFile: join(tmp.path, "state", "run", "index"),
    },
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

Deno.test("decodeLossless() and encodeLossless() give back the same bytes", () => {
  const samples = [
    Uint8Array.of(0x62, 0xe9, 0x2e),
    Uint8Array.of(0xed, 0xa0, 0x80, 0xc3),
    new TextEncoder().encode("ünï 文件 \u{10080} 😀"),
    Uint8Array.of(0xf0, 0x90, 0x82, 0x80, 0xdc, 0x80, 0xff),
  ];
  for (const bytes of samples) assert.deepStrictEqual(encodeLossless(decodeLossless(bytes)), bytes);
});

Deno.test("a write run's changes to files whose names are not UTF-8 are listed and reverted", async () => {
  await using s = await setup();
  const userTree = await listing(s.root);
  const gitDir = await gitDirFingerprint(join(s.root, ".git"));
  const before = await snapshot(s.sys, s.repo, s.store);
  await shell(s.root, `echo worker >> ${BAD}; echo new > ${NEW}; rm ${GONE}`);
  const after = await snapshot(s.sys, s.repo, { ...s.store, base: before });
  const changes = await diffSnapshots(s.sys, s.repo, { ...s.store, before, after });
  assert.deepStrictEqual(
    changes.files.map((f) => [encodeLossless(f.path), f.status]),
    [
      [Uint8Array.of(...new TextEncoder().encode("bad"), 0xe9, 0x2e, 0x74, 0x78, 0x74), "modified"],
      [Uint8Array.of(...new TextEncoder().encode("gone"), 0xe9, 0x2e, 0x74, 0x78, 0x74), "deleted"],
      [Uint8Array.of(...new TextEncoder().encode("new"), 0xff, 0x2e, 0x74, 0x78, 0x74), "added"],
    ],
  );
  await revert(s.sys, s.repo, { ...s.store, before, after });
  assert.equal(await listing(s.root), userTree);
  assert.deepStrictEqual(await gitDirFingerprint(join(s.root, ".git")), gitDir);
});

Deno.test("apply writes and merges files whose names are not UTF-8", async () => {
  await using s = await setup();
  const before = await snapshot(s.sys, s.repo, s.store);
  const dest = join(s.tmp.path, "copy");
  await makeCopy(s.sys, s.repo, { objectsDir: s.store.objectsDir, dest, snapshot: before });
  await shell(dest, `sed -i 's/^7$/7 (worker)/' ${BAD}; echo new > ${NEW}`);
  const copy = copyRepo(dest, s.repo.objectFormat);
  const after = await snapshot(s.sys, copy, { objectsDir: s.store.objectsDir, base: before });
  // The user edits the same file elsewhere meanwhile: it is merged.
  await shell(s.root, `sed -i 's/^2$/2 (user)/' ${BAD}`);
  const report = await applyChanges(s.sys, s.repo, {
    objectsDir: s.store.objectsDir,
    before,
    after: after.tree,
  });
  assert.equal(report.merged.length, 1);
  assert.equal(report.applied.length, 1);
  assert.equal(
    await shell(s.root, `cat ${BAD} ${NEW}`),
    "1 (user)\n2 (user)\n3\n4\n5\n6\n7 (worker)\n8\nnew\n",
  );
});
