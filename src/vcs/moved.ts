/**
 * Whether the user's repository moved under a run: HEAD's commit, and a digest of the index's
 * entries (mode, id and path of each; not the stat data git refreshes on its own) and of the
 * stash, so a commit, a branch switch, a stash or a reset while a write run worked can be told.
 * A `reset --hard` or `checkout -- FILE` that moves neither is seen only as file changes. The
 * digest is read from the files themselves (no git process).
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

/** What `refs/stash` names: the loose ref, else its line in `packed-refs` (empty: none). */
async function stashRef(repo: RepoInfo): Promise<Uint8Array> {
  const loose = await readOrEmpty(join(repo.commonDir, "refs", "stash"));
  if (loose.length > 0) return loose;
  const packed = new TextDecoder().decode(await readOrEmpty(join(repo.commonDir, "packed-refs")));
  const line = packed.split("\n").find((l) => l.endsWith(" refs/stash")) ?? "";
  return new TextEncoder().encode(line);
}

/** A digest of the user's index entries and of the stash (hex). */
export async function indexDigest(repo: RepoInfo): Promise<string> {
  const bytes = await readOrEmpty(repo.indexFile);
  const index = parseIndex(bytes, repo.objectFormat === "sha256" ? 32 : 20);
  const parts: Uint8Array[] = [];
  if (index.version === 0) {
    // Not an index Pitroom reads (none yet, or torn): the file itself.
    parts.push(bytes);
  } else {
    for (let n = 0; n < index.count; n++) {
      const mode = index.mode[n]!;
      parts.push(Uint8Array.of(mode >>> 24, (mode >>> 16) & 255, (mode >>> 8) & 255, mode & 255));
      parts.push(bytes.subarray(index.idAt[n]!, index.idAt[n]! + index.idLength));
      const at = index.pathAt[n]!;
      parts.push(index.paths.subarray(at, at + index.pathLength[n]!), Uint8Array.of(0));
    }
  }
  parts.push(await stashRef(repo));
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  const hash = await crypto.subtle.digest("SHA-1", all);
  return Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, "0")).join("");
}
