/**
 * A repository in the state a user leaves it mid-work (commits, a stash entry, staged and
 * unstaged changes, untracked and ignored files, odd names, a binary file and a script), the
 * edits of a simulated worker on top, and a fingerprint of everything git keeps for the user.
 */
import { join } from "node:path";
import { gitDirFingerprint, put, sh } from "./_helpers.ts";

/** Bytes that are not text (NULs and high bytes). */
export function binaryBytes(seed: number, length = 600): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + seed * 7) % 256);
}

/** Paths the fixture uses. */
export const P = {
  userModified: "a.txt",
  staged: "b.txt",
  workerEdited: "c.txt",
  script: "tools/run.sh",
  binary: "assets/logo.bin",
  unicode: "dir with space/ünï 文件.txt",
  deep: "sub/deep/x.txt",
  untracked: "notes/untracked.txt",
  privateFile: "secret.env",
  ignored: "build.log",
  workerAdded: "new/feature/n.txt",
  workerIgnored: "worker.log",
} as const;

/** Builds the dirty repository in `root`. */
export async function makeDirtyRepo(home: string, root: string): Promise<void> {
  await sh(home, root, "init", "-q", "-b", "main");
  await put(root, ".gitignore", "*.log\n");
  await put(root, P.userModified, "one\ntwo\nthree\n");
  await put(root, P.staged, "staged base\n");
  await put(root, P.workerEdited, "alpha\nbeta\ngamma\n");
  await put(root, P.script, "#!/bin/sh\necho run\n");
  await put(root, P.binary, binaryBytes(1));
  await put(root, P.unicode, "unicode base\n");
  await put(root, P.deep, "deep file\n");
  await put(root, P.privateFile, "TOKEN=1\n");
  await Deno.chmod(join(root, P.privateFile), 0o600);
  await sh(home, root, "add", "-A");
  await sh(home, root, "commit", "-q", "-m", "base");
  await sh(home, root, "branch", "feature");
  // A stash entry the user keeps around.
  await put(root, P.staged, "stashed work\n");
  await sh(home, root, "stash", "push", "-q", "-m", "keep me");
  // Uncommitted work: an unstaged edit, a staged edit, untracked and ignored files.
  await put(root, P.userModified, "one\ntwo (user)\nthree\n");
  await put(root, P.staged, "staged by user\n");
  await sh(home, root, "add", P.staged);
  await put(root, P.untracked, "user's untracked note\n");
  await put(root, P.ignored, "ignored output\n");
}

/** The simulated worker: edits, adds, deletes, flips a mode, rewrites binary and odd names. */
export async function workerEdits(root: string): Promise<void> {
  await put(root, P.workerEdited, "alpha\nBETA\ngamma\ndelta\n");
  await put(root, P.userModified, "one\ntwo (user)\nthree\nfour (worker)\n");
  await put(root, P.workerAdded, "new file\n");
  await Deno.remove(join(root, P.deep));
  await Deno.chmod(join(root, P.script), 0o755);
  await put(root, P.binary, binaryBytes(2));
  await put(root, P.unicode, "unicode edited\n");
  await put(root, P.privateFile, "TOKEN=2\n");
  await put(root, P.workerIgnored, "ignored by the snapshot\n");
}

/** Everything of the user's repository that vcs/ must leave alone. */
export async function userRepoState(home: string, root: string) {
  const gitDir = join(root, ".git");
  return {
    index: await Deno.readFile(join(gitDir, "index")),
    indexMtime: (await Deno.stat(join(gitDir, "index"))).mtime,
    head: await sh(home, root, "rev-parse", "HEAD"),
    symbolicHead: await sh(home, root, "symbolic-ref", "HEAD"),
    refs: await sh(home, root, "for-each-ref"),
    stash: await sh(home, root, "stash", "list"),
    objects: await sh(home, root, "count-objects", "-v"),
    gitDir: await gitDirFingerprint(gitDir),
  };
}
