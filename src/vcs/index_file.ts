/**
 * Reads a git index file (versions 2, 3 and 4) as far as a snapshot needs: each entry's path
 * bytes, mode and object id, and the cache tree (the tree id and entry count git already knows
 * for each folder). Pure: bytes in, data out, and no path is decoded. Anything a plain reading
 * could get wrong (conflict stages, skip-worktree or intent-to-add entries, assume-unchanged
 * bits, a split or sparse index, an extension git requires readers to understand) is named in
 * `unsupported`, and the caller takes the slow path.
 */
import { decodeLossless } from "./lossless.ts";

/** One folder of the cache tree. */
export interface CacheNode {
  /** The folder's tree id in hex, or null when git has marked it out of date. */
  id: string | null;
  /** How many index entries lie under the folder (when `id` is known). */
  count: number;
  children: Map<string, CacheNode>;
}

/** What `parseIndex` read. Entry `i`'s path is `paths[pathAt[i] .. pathAt[i] + pathLength[i]]`. */
export interface ParsedIndex {
  version: number;
  /** The index file itself (the entries' ids point into it). */
  bytes: Uint8Array;
  idLength: number;
  count: number;
  /** The buffer holding the paths: `bytes` itself, or for version 4 the paths spelt out. */
  paths: Uint8Array;
  pathAt: Uint32Array;
  pathLength: Uint32Array;
  /** Where each entry's id starts in `bytes`. */
  idAt: Uint32Array;
  /** Each entry's mode as a number (0o100644, 0o100755, 0o120000 or 0o160000). */
  mode: Uint32Array;
  /** The cache tree's root, or null when the index has none. */
  tree: CacheNode | null;
  /** Why this index cannot be read plainly, or null. */
  unsupported: string | null;
}

const HEX: string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** `length` bytes of `bytes` from `at`, in lowercase hex. */
export function hexAt(bytes: Uint8Array, at: number, length: number): string {
  let out = "";
  for (let i = at; i < at + length; i++) out += HEX[bytes[i]!];
  return out;
}

const MODES = new Set([0o100644, 0o100755, 0o120000, 0o160000]);

/** Extensions a plain reading may ignore or uses (optional ones start with a capital letter). */
const KNOWN = new Set(["TREE", "REUC", "UNTR", "FSMN", "EOIE", "IEOT"]);

function latin(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/** Reads the cache tree extension (pre-order: name, entry count, subtree count, id). */
function readTree(bytes: Uint8Array, from: number, to: number, idLength: number): CacheNode {
  let at = from;
  const node = (): { name: string; node: CacheNode } => {
    const nul = bytes.indexOf(0, at);
    if (nul < 0 || nul >= to) throw new Error("torn cache tree");
    const name = decodeLossless(bytes.subarray(at, nul));
    const line = bytes.indexOf(0x0a, nul);
    if (line < 0 || line >= to) throw new Error("torn cache tree");
    const [count, subtrees] = latin(bytes, nul + 1, line - nul - 1).split(" ").map(Number);
    if (!Number.isInteger(count) || !Number.isInteger(subtrees) || subtrees! < 0) {
      throw new Error("bad cache tree counts");
    }
    at = line + 1;
    let id: string | null = null;
    if (count! >= 0) {
      if (at + idLength > to) throw new Error("torn cache tree");
      id = hexAt(bytes, at, idLength);
      at += idLength;
    }
    const children = new Map<string, CacheNode>();
    for (let i = 0; i < subtrees!; i++) {
      const child = node();
      children.set(child.name, child.node);
    }
    return { name, node: { id, count: count!, children } };
  };
  return node().node;
}

/** Parses the index file `bytes`; `idLength` is 20 for SHA-1 repositories. */
export function parseIndex(bytes: Uint8Array, idLength = 20): ParsedIndex {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const none = new Uint32Array(0);
  const empty = (unsupported: string): ParsedIndex => ({
    version: 0,
    bytes,
    idLength,
    count: 0,
    paths: bytes,
    pathAt: none,
    pathLength: none,
    idAt: none,
    mode: none,
    tree: null,
    unsupported,
  });
  if (bytes.length < 12 + idLength || latin(bytes, 0, 4) !== "DIRC") return empty("not an index");
  const version = view.getUint32(4);
  if (version < 2 || version > 4) return empty(`index version ${version}`);
  const count = view.getUint32(8);
  const end = bytes.length - idLength;
  if (count > end / 62) return empty("torn index");
  const pathAt = new Uint32Array(count);
  const pathLength = new Uint32Array(count);
  const idAt = new Uint32Array(count);
  const mode = new Uint32Array(count);
  // Version 4 compresses each path against the one before: they are spelt out in `paths`.
  let paths = version === 4 ? new Uint8Array(bytes.length * 2) : bytes;
  let used = 0;
  let unsupported: string | null = null;
  let at = 12;
  for (let n = 0; n < count; n++) {
    if (at + 40 + idLength + 2 > end) return empty("torn index");
    const start = at;
    mode[n] = view.getUint32(at + 24);
    idAt[n] = at + 40;
    at += 40 + idLength;
    const flags = view.getUint16(at);
    at += 2;
    let extended = 0;
    if (flags & 0x4000) {
      if (version < 3) return empty("extended flags in a version 2 index");
      extended = view.getUint16(at);
      at += 2;
    }
    if (version === 4) {
      let c = bytes[at++]!;
      let strip = c & 0x7f;
      while (c & 0x80) {
        c = bytes[at++]!;
        strip = ((strip + 1) << 7) | (c & 0x7f);
      }
      const nul = bytes.indexOf(0, at);
      const previous = n === 0 ? 0 : pathLength[n - 1]!;
      if (nul < 0 || nul >= end || strip > previous) return empty("torn index");
      const kept = previous - strip;
      const length = kept + nul - at;
      if (used + length > paths.length) {
        const grown = new Uint8Array((used + length) * 2);
        grown.set(paths.subarray(0, used));
        paths = grown;
      }
      if (n > 0) paths.copyWithin(used, pathAt[n - 1]!, pathAt[n - 1]! + kept);
      paths.set(bytes.subarray(at, nul), used + kept);
      pathAt[n] = used;
      pathLength[n] = length;
      used += length;
      at = nul + 1;
    } else {
      const nul = bytes.indexOf(0, at);
      if (nul < 0 || nul >= end) return empty("torn index");
      pathAt[n] = at;
      pathLength[n] = nul - at;
      // Padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
      at = start + ((nul - start + 8) & ~7);
    }
    if (unsupported !== null) continue;
    if ((flags >> 12) & 3) unsupported = "a conflicted entry";
    else if (flags & 0x8000) unsupported = "an assume-unchanged entry";
    else if (extended & 0x4000) unsupported = "a skip-worktree entry";
    else if (extended & 0x2000) unsupported = "an intent-to-add entry";
    else if (!MODES.has(mode[n]!)) unsupported = "an entry of unknown mode";
  }
  let tree: CacheNode | null = null;
  while (at + 8 <= end) {
    const signature = latin(bytes, at, 4);
    const size = view.getUint32(at + 4);
    const from = at + 8;
    if (from + size > end) return empty("torn extension");
    if (signature === "TREE") {
      try {
        if (size > 0) tree = readTree(bytes, from, from + size, idLength);
      } catch {
        unsupported ??= "a torn cache tree";
      }
    } else if (!KNOWN.has(signature)) {
      unsupported ??= `the index extension ${JSON.stringify(signature)}`;
    }
    at = from + size;
  }
  return {
    version,
    bytes,
    idLength,
    count,
    paths,
    pathAt,
    pathLength,
    idAt,
    mode,
    tree,
    unsupported,
  };
}
