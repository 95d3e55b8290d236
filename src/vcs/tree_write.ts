/**
 * Builds the tree of an index with some files changed, without writing a second index, the
 * way git's cache tree does: one pass over the entries in index order (which is git's tree
 * order within each folder), where a folder with no change and a tree the cache tree knows
 * is skipped whole and keeps its id. Only the other folders get new tree objects, encoded and
 * hashed here and written to Pitroom's store as loose objects. tests/vcs/quick_snapshot_test.ts
 * checks them against `git write-tree` and `git fsck`.
 */
import { join } from "../sys/path.ts";
import { statOrNullSync } from "../sys/fs.ts";
import { decodeLossless, encodeLossless } from "./lossless.ts";
import type { CacheNode, ParsedIndex } from "./index_file.ts";
import type { StoreOptions } from "./store.ts";

/** A file's new state: its mode and blob id (hex), or null when it is gone. */
export type FileState = { mode: string; id: string } | null;

/** The trees to write, children before parents, and the root's id. */
export interface BuiltTrees {
  root: string;
  /** Each tree to write: its id and the object's bytes (header and content). */
  writes: { id: string; object: Uint8Array }[];
  /** Folders of the index that hold no file any more. */
  gone: string[];
  /** Every folder of the tree ("" for the root) with its subfolders' names. */
  folders: Map<string, string[]>;
}

/** The tree id of the empty tree (SHA-1). */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** A path is both a file and a folder after the changes: not a tree this module builds. */
export class TreeShapeError extends Error {}

const SLASH = 0x2f;

/** How objects are named and compressed: SHA-1 and zlib. */
export interface ObjectCodec {
  /** The id of `object` (header and content). */
  id(object: Uint8Array): string;
  deflate(object: Uint8Array): Uint8Array;
}

let loading: Promise<ObjectCodec> | undefined;

/**
 * The codec, from node's crypto and zlib loaded on first use: imported with the module they
 * would add to every command's start-up time. The snapshot starts loading them beside git.
 */
export function objectCodec(): Promise<ObjectCodec> {
  return loading ??= (async () => {
    const [{ createHash }, { deflateSync }] = await Promise.all([
      import("node:crypto"),
      import("node:zlib"),
    ]);
    return {
      id: (object) => createHash("sha1").update(object).digest("hex"),
      deflate: (object) => deflateSync(object, { level: 1 }),
    };
  })();
}

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const MODE_TEXT = new Map<number, Uint8Array>(
  [0o100644, 0o100755, 0o120000, 0o160000].map((mode) => [
    mode,
    new TextEncoder().encode(mode.toString(8)),
  ]),
);
const DIR_MODE = new TextEncoder().encode("40000");

/** One folder's tree object being written: a growing buffer of entries. */
class TreeBuffer {
  bytes = new Uint8Array(4096);
  length = 0;
  /** Where each file entry's name starts and ends, for the file-and-folder check. */
  readonly files: { at: number; end: number }[] = [];

  #room(size: number) {
    if (this.length + size <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + size));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** Appends `<mode> <name>\0<id>`; the name is `src[from..to]`, the id `ids[idAt..]`. */
  add(
    mode: Uint8Array,
    src: Uint8Array,
    from: number,
    to: number,
    ids: Uint8Array,
    idAt: number,
    idLength: number,
    file: boolean,
  ) {
    this.#room(mode.length + 2 + (to - from) + idLength);
    const out = this.bytes;
    let at = this.length;
    for (let i = 0; i < mode.length; i++) out[at++] = mode[i]!;
    out[at++] = 0x20;
    const name = at;
    for (let i = from; i < to; i++) out[at++] = src[i]!;
    if (file) this.files.push({ at: name, end: at });
    out[at++] = 0;
    for (let i = idAt; i < idAt + idLength; i++) out[at++] = ids[i]!;
    this.length = at;
  }

  /** True when a file of this folder has the name `src[from..to]`. */
  hasFile(src: Uint8Array, from: number, to: number): boolean {
    // Files that sort between a file "b" and a folder "b" are named "b" then a byte below "/".
    for (let k = this.files.length - 1; k >= 0; k--) {
      const { at, end } = this.files[k]!;
      const length = to - from;
      if (end - at < length) return false;
      for (let i = 0; i < length; i++) if (this.bytes[at + i] !== src[from + i]) return false;
      if (end - at === length) return true;
      if (this.bytes[at + length]! >= SLASH) return false;
    }
    return false;
  }

  /** The whole object: `tree <size>\0` and the entries. */
  object(): Uint8Array {
    const header = new TextEncoder().encode(`tree ${this.length}\0`);
    const out = new Uint8Array(header.length + this.length);
    out.set(header);
    out.set(this.bytes.subarray(0, this.length), header.length);
    return out;
  }
}

function compareBytes(
  a: Uint8Array,
  aFrom: number,
  aTo: number,
  b: Uint8Array,
  bFrom: number,
  bTo: number,
): number {
  const n = Math.min(aTo - aFrom, bTo - bFrom);
  for (let i = 0; i < n; i++) {
    const d = a[aFrom + i]! - b[bFrom + i]!;
    if (d !== 0) return d;
  }
  return (aTo - aFrom) - (bTo - bFrom);
}

/** True when `src[from..to]` starts with `prefix[0..length]`. */
function startsWith(src: Uint8Array, from: number, to: number, prefix: Uint8Array, length: number) {
  if (to - from < length) return false;
  for (let i = 0; i < length; i++) if (src[from + i] !== prefix[i]) return false;
  return true;
}

/**
 * The tree of `index` with `changes` (path to its new state) applied. Throws `TreeShapeError`
 * when a path would be a file and a folder at once.
 */
export function buildTrees(
  index: ParsedIndex,
  changes: Map<string, FileState>,
  codec: ObjectCodec,
): BuiltTrees {
  const { paths, pathAt, pathLength, idLength } = index;
  const changed = [...changes].map(([path, state]) => ({
    path: encodeLossless(path),
    mode: state === null ? null : new TextEncoder().encode(state.mode),
    id: state === null ? null : fromHex(state.id),
  })).sort((a, b) => compareBytes(a.path, 0, a.path.length, b.path, 0, b.path.length));
  const writes: BuiltTrees["writes"] = [];
  const gone: string[] = [];
  const folders = new Map<string, string[]>();
  /** A subtree kept whole: its folders are the cache tree's. */
  const keptWhole = (path: string, node: CacheNode) => {
    folders.set(path, [...node.children.keys()]);
    for (const [name, child] of node.children) {
      keptWhole(path === "" ? name : `${path}/${name}`, child);
    }
  };
  // The current folder's path with a "/" after it: a prefix of everything inside it.
  let prefix = new Uint8Array(256);
  const entryEnd = (i: number) => pathAt[i]! + pathLength[i]!;

  /** Builds the folder whose prefix is `prefix[0..depth]`; null when it holds nothing. */
  const folder = (
    depth: number,
    node: CacheNode | null,
    i: number,
    iEnd: number,
    c: number,
    cEnd: number,
  ): string | null => {
    const tree = new TreeBuffer();
    const subfolders: string[] = [];
    while (i < iEnd || c < cEnd) {
      // The next item in path order; a change to an entry's path replaces the entry.
      let fromEntry: boolean;
      let same = false;
      if (c >= cEnd) fromEntry = true;
      else if (i >= iEnd) fromEntry = false;
      else {
        const order = compareBytes(
          paths,
          pathAt[i]!,
          entryEnd(i),
          changed[c]!.path,
          0,
          changed[c]!.path.length,
        );
        same = order === 0;
        fromEntry = order < 0;
      }
      const src = fromEntry ? paths : changed[c]!.path;
      const from = (fromEntry ? pathAt[i]! : 0) + depth;
      const to = fromEntry ? entryEnd(i) : changed[c]!.path.length;
      let slash = -1;
      for (let k = from; k < to; k++) {
        if (src[k] === SLASH) {
          slash = k - from;
          break;
        }
      }
      if (slash < 0) {
        if (fromEntry) {
          tree.add(
            MODE_TEXT.get(index.mode[i]!)!,
            src,
            from,
            to,
            index.bytes,
            index.idAt[i]!,
            idLength,
            true,
          );
          i++;
        } else {
          // A change to an entry's path replaces the entry.
          if (same) i++;
          const change = changed[c++]!;
          if (change.mode !== null) {
            tree.add(change.mode, src, from, to, change.id!, 0, idLength, true);
          }
        }
        continue;
      }
      // A subfolder: every entry and change under `<prefix><name>/`.
      const nameEnd = from + slash;
      const subDepth = depth + slash + 1;
      if (prefix.length < subDepth) {
        const grown = new Uint8Array(subDepth * 2);
        grown.set(prefix);
        prefix = grown;
      }
      prefix.set(src.subarray(from, nameEnd + 1), depth);
      const name = decodeLossless(src.subarray(from, nameEnd));
      const child = node?.children.get(name) ?? null;
      let cSub = c;
      while (
        cSub < cEnd &&
        startsWith(changed[cSub]!.path, 0, changed[cSub]!.path.length, prefix, subDepth)
      ) cSub++;
      // The cache tree's count gives where the subfolder's entries end (checked at both ends).
      const counted = child !== null && child.id !== null ? i + child.count : -1;
      const fits = counted > i && counted <= iEnd &&
        startsWith(paths, pathAt[counted - 1]!, entryEnd(counted - 1), prefix, subDepth) &&
        (counted === iEnd ||
          !startsWith(paths, pathAt[counted]!, entryEnd(counted), prefix, subDepth));
      let iSub = i;
      if (fits) iSub = counted;
      else {
        while (iSub < iEnd && startsWith(paths, pathAt[iSub]!, entryEnd(iSub), prefix, subDepth)) {
          iSub++;
        }
      }
      let id: string | null;
      if (fits && cSub === c) {
        // Unchanged, and git knows its tree: skipped whole.
        id = child!.id;
        keptWhole(decodeLossless(prefix.subarray(0, subDepth - 1)), child!);
      } else {
        id = folder(subDepth, child, i, iSub, c, cSub);
        if (id === null && iSub > i) gone.push(decodeLossless(prefix.subarray(0, subDepth - 1)));
      }
      if (id !== null && tree.hasFile(src, from, nameEnd)) {
        throw new TreeShapeError(
          `"${decodeLossless(prefix.subarray(0, subDepth - 1))}" is a file and a folder`,
        );
      }
      if (id !== null) {
        tree.add(DIR_MODE, src, from, nameEnd, fromHex(id), 0, idLength, false);
        subfolders.push(name);
      }
      i = iSub;
      c = cSub;
    }
    if (tree.length === 0) return null;
    folders.set(depth === 0 ? "" : decodeLossless(prefix.subarray(0, depth - 1)), subfolders);
    const object = tree.object();
    const id = codec.id(object);
    writes.push({ id, object });
    return id;
  };

  const root = index.tree;
  if (changed.length === 0 && typeof root?.id === "string" && root.count === index.count) {
    keptWhole("", root);
    return { root: root.id, writes, gone, folders };
  }
  const id = folder(0, root, 0, index.count, 0, changed.length);
  if (id === null) folders.set("", []);
  return { root: id ?? EMPTY_TREE, writes, gone, folders };
}

/**
 * Writes objects to Pitroom's object store as loose objects (zlib-compressed, named by their
 * id, each written to a temporary file and renamed into place, as git does); one already there
 * is left alone. Synchronous: a few hundred small writes cost less than as many trips to
 * Deno's thread pool.
 */
export class LooseWriter {
  readonly #objectsDir: string;
  readonly #codec: ObjectCodec;
  /** The fan-out folders seen: true for one made here (nothing can be in it yet). */
  readonly #folders = new Map<string, boolean>();
  readonly #written = new Set<string>();

  constructor(store: StoreOptions, codec: ObjectCodec) {
    this.#objectsDir = store.objectsDir;
    this.#codec = codec;
  }

  write(id: string, object: Uint8Array): void {
    if (this.#written.has(id)) return;
    this.#written.add(id);
    const folder = join(this.#objectsDir, id.slice(0, 2));
    const path = join(folder, id.slice(2));
    let made = this.#folders.get(folder);
    if (made === undefined) {
      made = statOrNullSync(folder) === null;
      if (made) Deno.mkdirSync(folder, { recursive: true, mode: 0o700 });
      this.#folders.set(folder, made);
    }
    if (!made && statOrNullSync(path) !== null) return;
    const draft = join(folder, `tmp_obj_${crypto.randomUUID()}`);
    Deno.writeFileSync(draft, this.#codec.deflate(object), { mode: 0o444 });
    try {
      Deno.renameSync(draft, path);
    } catch (error) {
      try {
        Deno.removeSync(draft);
      } catch {
        // Already gone.
      }
      throw error;
    }
  }
}

/** Writes `built`'s trees to Pitroom's object store; a tree already there is left alone. */
export function writeTrees(writer: LooseWriter, built: BuiltTrees): void {
  for (const tree of built.writes) writer.write(tree.id, tree.object);
}
