/**
 * What a remote run ships: the private copy's state as one commit (the snapshot's tree, its
 * parent the user's HEAD, fixed names and dates so one state is always the same commit) and a
 * `git bundle` of it without what the host has already. The objects are the copy's (its store
 * borrows the user's and Pitroom's), the bytes as they were on disk.
 */
import type { HeldSys } from "../../store/state.ts";
import { git } from "../../vcs/git.ts";
import { join } from "../../sys/path.ts";

const FIXED = {
  GIT_AUTHOR_NAME: "pitroom",
  GIT_AUTHOR_EMAIL: "pitroom@localhost",
  GIT_AUTHOR_DATE: "@0 +0000",
  GIT_COMMITTER_NAME: "pitroom",
  GIT_COMMITTER_EMAIL: "pitroom@localhost",
  GIT_COMMITTER_DATE: "@0 +0000",
};

/** The git environment of a copy at `root`. */
export function copyEnv(root: string): Record<string, string> {
  return { GIT_DIR: join(root, ".git"), GIT_WORK_TREE: root };
}

/** The commit standing for the copy's state `tree` on `head` (made in the copy's store). */
export async function stateCommit(
  sys: HeldSys,
  root: string,
  state: { tree: string; head: string | null },
): Promise<string> {
  const args = ["commit-tree", state.tree, ...(state.head ? ["-p", state.head] : [])];
  const out = await git(sys, [...args, "-m", "pitroom state"], {
    cwd: root,
    env: { ...copyEnv(root), ...FIXED },
  });
  return out.stdout.trim();
}

/** The commits of `haves` this copy knows (the host's tips worth leaving out of the bundle). */
async function known(sys: HeldSys, root: string, haves: readonly string[]): Promise<string[]> {
  const ids = haves.filter((h) => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(h));
  if (ids.length === 0) return [];
  const out = await git(sys, ["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
    cwd: root,
    env: copyEnv(root),
    stdin: new TextEncoder().encode(ids.join("\n") + "\n"),
  });
  return out.stdout.split("\n").flatMap((line) => {
    const [id, type] = line.split(" ");
    return type === "commit" && id ? [id] : [];
  });
}

/**
 * The bundle of `commit` (as `refs/pitroom/state`) without what the host has (`haves`), written
 * to `file`; null when the host has the commit already.
 */
export async function bundleFor(
  sys: HeldSys,
  root: string,
  commit: string,
  haves: readonly string[],
  file: string,
): Promise<Uint8Array | null> {
  if (haves.includes(commit)) return null;
  const env = copyEnv(root);
  await git(sys, ["update-ref", "--no-deref", "refs/pitroom/state", commit], { cwd: root, env });
  const not = (await known(sys, root, haves)).map((id) => `^${id}`);
  await git(sys, ["bundle", "create", "-q", file, "refs/pitroom/state", ...not], {
    cwd: root,
    env,
  });
  try {
    return await Deno.readFile(file);
  } finally {
    await Deno.remove(file).catch(() => undefined);
  }
}
