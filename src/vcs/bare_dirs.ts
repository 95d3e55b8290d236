/**
 * The snapshot's bare folders for its quick path: the untracked folders that hold no snapshot
 * file (empty, or only ignored files), named at their topmost level, as
 * `git ls-files --others --directory --exclude-standard` names them once the untracked files are
 * in the index.
 *
 * `git status` has named every untracked file and every ignored path already; the only folders
 * it cannot name are the ones holding nothing it reports. A folder's link count is two plus its
 * subfolders on the file systems git runs on (ext4, xfs, tmpfs, apfs): where it matches the
 * subfolders known, nothing is left to find and no folder is read. Where it says more, that
 * folder is read; where it says fewer (a file system that does not count them, as btrfs), null:
 * the caller lists them with git instead (`bareFromListing`).
 */
import { join } from "../sys/path.ts";
import { representable } from "./lossless.ts";

/** What the snapshot knows of the tree when it looks for bare folders. */
export interface FolderFacts {
  root: string;
  /** Each folder of the snapshot's tree ("" for the root) with its subfolders' names. */
  tracked: Map<string, string[]>;
  /** The untracked files going into the snapshot. */
  untracked: readonly string[];
  /** What git ignored: files, and folders with a trailing slash. */
  ignored: readonly string[];
}

type Kind = "holding" | "ignored" | "ignored-only";

function parentOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut < 0 ? "" : path.slice(0, cut);
}

/** Each folder's untracked subfolders that git's output names, by what they hold. */
function knownFolders(facts: FolderFacts): Map<string, Map<string, Kind>> {
  const known = new Map<string, Map<string, Kind>>();
  const mark = (path: string, kind: Kind) => {
    for (let at = path; at !== "" && !facts.tracked.has(at); at = parentOf(at)) {
      const parent = parentOf(at);
      let here = known.get(parent);
      if (here === undefined) known.set(parent, here = new Map());
      const was = here.get(at.slice(parent === "" ? 0 : parent.length + 1));
      // A folder holding a snapshot file anywhere below is "holding"; an ignored one stays so.
      if (was === "holding" || (was === "ignored" && kind !== "holding")) break;
      here.set(at.slice(parent === "" ? 0 : parent.length + 1), kind);
      kind = kind === "holding" ? "holding" : "ignored-only";
    }
  };
  for (const path of facts.untracked) mark(parentOf(path), "holding");
  for (const entry of facts.ignored) {
    if (entry.endsWith("/")) mark(entry.slice(0, -1), "ignored");
    else mark(parentOf(entry), "ignored-only");
  }
  return known;
}

/** The bare folders by link counts, sorted; null where the counts cannot be trusted. */
export function bareByLinks(facts: FolderFacts): string[] | null {
  const known = knownFolders(facts);
  const holding = [...known].flatMap(([parent, here]) =>
    [...here].filter(([, kind]) => kind === "holding").map(([name]) =>
      parent === "" ? name : `${parent}/${name}`
    )
  );
  const bare: string[] = [];
  for (const folder of [...facts.tracked.keys(), ...holding]) {
    if (!representable(folder)) return null;
    const subfolders = new Set(facts.tracked.get(folder) ?? []);
    const here = known.get(folder) ?? new Map<string, Kind>();
    const path = (name: string) => folder === "" ? name : `${folder}/${name}`;
    for (const [name, kind] of here) if (kind === "ignored-only") bare.push(path(name));
    const abs = folder === "" ? facts.root : join(facts.root, folder);
    const links = statOrNull(abs)?.nlink ?? null;
    if (links === null) return null;
    if (folder === "" && statOrNull(join(abs, ".git"))?.isDirectory) subfolders.add(".git");
    const expected = subfolders.size + here.size;
    if (links - 2 < expected) return null;
    if (links - 2 === expected) continue;
    for (const entry of Deno.readDirSync(abs)) {
      if (!entry.isDirectory || subfolders.has(entry.name) || here.has(entry.name)) continue;
      if (entry.name.includes("\uFFFD")) return null;
      bare.push(path(entry.name));
    }
  }
  return bare.sort();
}

/** `lstat` of a folder, or null when it is not one (or gone). */
function statOrNull(path: string): Deno.FileInfo | null {
  try {
    const info = Deno.lstatSync(path);
    return info.isDirectory ? info : null;
  } catch {
    return null;
  }
}

/**
 * The bare folders from `git ls-files --others --directory --exclude-standard` run on the
 * user's index (`listed`, NUL-separated): there a new folder holding files is named whole, so
 * those are read for the folders inside them that hold none. Null for a name Deno cannot read.
 */
export async function bareFromListing(
  facts: FolderFacts,
  listed: string,
): Promise<string[] | null> {
  const holding = new Set<string>();
  for (const path of facts.untracked) {
    for (let at = parentOf(path); at !== "" && !holding.has(at); at = parentOf(at)) {
      holding.add(at);
    }
  }
  const ignoredDirs = new Set(facts.ignored.filter((entry) => entry.endsWith("/")));
  const bare: string[] = [];
  const walk = async (folder: string): Promise<boolean> => {
    for await (const entry of Deno.readDir(join(facts.root, folder))) {
      if (!entry.isDirectory) continue;
      if (entry.name.includes("\uFFFD")) return false;
      const path = `${folder}/${entry.name}`;
      if (ignoredDirs.has(`${path}/`)) continue;
      if (!holding.has(path)) bare.push(path);
      else if (!(await walk(path))) return false;
    }
    return true;
  };
  const folders = listed.split("\0").filter((entry) => entry.endsWith("/"))
    .map((entry) => entry.slice(0, -1));
  for (const folder of folders) {
    if (!holding.has(folder)) bare.push(folder);
    else if (!representable(folder) || !(await walk(folder))) return null;
  }
  return bare.sort();
}
