/**
 * Whether the user's index or stash moved under a run (a commit, a stash, a reset, `git add`),
 * read from the files themselves (no git process). Before the run the index file is copied aside
 * and its trailing checksum and the stash's ref are noted; afterwards the same checksum means the
 * same index, and a different one is compared entry by entry (mode, id and path of each: a
 * rewrite that only refreshed stat data, as any `git status` may do, is no move). A `reset
 * --hard` or `checkout -- FILE` that moves neither is seen only as file changes; HEAD is the
 * caller's to compare.
 */
import { join } from "../sys/path.ts";
import { parseIndex } from "./index_file.ts";
import type { RepoInfo } from "./repo.ts";

async function readOrEmpty(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return new Uint8Array();
    }
    throw error;
  }
}

/** What `refs/stash` names: the loose ref, else its line in `packed-refs` ("" when none). */
async function stashRef(repo: RepoInfo): Promise<string> {
  const loose = new TextDecoder().decode(await readOrEmpty(join(repo.commonDir, "refs", "stash")));
  if (loose !== "") return loose.trim();
  const packed = new TextDecoder().decode(await readOrEmpty(join(repo.commonDir, "packed-refs")));
  return packed.split("\n").find((l) => l.endsWith(" refs/stash"))?.split(" ")[0] ?? "";
}

function idLength(repo: RepoInfo): number {
  return repo.objectFormat === "sha256" ? 32 : 20;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The index's entries (mode, id, path) in one buffer; the file itself when it is no index. */
function entriesOf(bytes: Uint8Array, length: number): Uint8Array {
  const index = parseIndex(bytes, length);
  if (index.version === 0) return bytes;
  let total = 0;
  for (let n = 0; n < index.count; n++) total += 5 + index.idLength + index.pathLength[n]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (let n = 0; n < index.count; n++) {
    const mode = index.mode[n]!;
    out[at++] = mode >>> 24;
    out[at++] = (mode >>> 16) & 255;
    out[at++] = (mode >>> 8) & 255;
    out[at++] = mode & 255;
    out.set(bytes.subarray(index.idAt[n]!, index.idAt[n]! + index.idLength), at);
    at += index.idLength;
    const from = index.pathAt[n]!;
    out.set(index.paths.subarray(from, from + index.pathLength[n]!), at);
    at += index.pathLength[n]! + 1;
  }
  return out;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Notes where the index and the stash stand now: the index file is copied to `keep` (for a
 * later comparison by entries); returns the mark to hand to `indexMoved`.
 */
export async function markIndex(repo: RepoInfo, keep: string): Promise<string> {
  try {
    await Deno.copyFile(repo.indexFile, keep);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    await Deno.writeFile(keep, new Uint8Array(), { mode: 0o600 });
  }
  return `${await checksumOf(keep, idLength(repo))} ${await stashRef(repo)}`;
}

/** The trailing checksum of an index file (read from its end only); "none" without one. */
async function checksumOf(path: string, length: number): Promise<string> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "none";
    throw error;
  }
  try {
    const size = (await file.stat()).size;
    if (size < length) return "none";
    await file.seek(size - length, Deno.SeekMode.Start);
    const tail = new Uint8Array(length);
    let got = 0;
    while (got < length) {
      const n = await file.read(tail.subarray(got));
      if (n === null) return "none";
      got += n;
    }
    return hex(tail);
  } finally {
    file.close();
  }
}

/** True when the index's entries or the stash differ from the `mark` (and copy) of `markIndex`. */
export async function indexMoved(
  repo: RepoInfo,
  { mark, kept }: { mark: string; kept: string },
): Promise<boolean> {
  const [checksum, stash = ""] = mark.split(" ");
  if ((await stashRef(repo)) !== stash) return true;
  if ((await checksumOf(repo.indexFile, idLength(repo))) === checksum) return false;
  const bytes = await readOrEmpty(repo.indexFile);
  let before: Uint8Array;
  try {
    before = await Deno.readFile(kept);
  } catch (error) {
    // The copy is gone (a run folder from before, cleaned): the checksum alone tells.
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
  return !same(entriesOf(before, idLength(repo)), entriesOf(bytes, idLength(repo)));
}
