/**
 * Every file path of a tree, as `git ls-tree -r --name-only` lists them (in its order), and the
 * lists a snapshot already knew: the quick path of the snapshot before a worker has the index's
 * paths and what `git status` said in hand, so the listing a run asks for next (its secret-looking
 * files) costs no second git process. A tree id names its content, so a list remembered by it is
 * exact for as long as it is kept.
 */
import { decodeLossless, encodeLossless } from "./lossless.ts";
import type { ParsedIndex } from "./index_file.ts";

/** How many trees' lists are kept (the last ones remembered). */
const KEPT = 3;

/** Each list, or how to make it (made when first asked for). */
const known = new Map<string, readonly string[] | (() => string[])>();

/** Remembers `files` (or how to list them, when asked) as the list of `tree`. */
export function rememberFiles(tree: string, files: readonly string[] | (() => string[])): void {
  known.delete(tree);
  known.set(tree, files);
  while (known.size > KEPT) known.delete(known.keys().next().value!);
}

/** The remembered list of `tree` (a copy), or null. */
export function knownFiles(tree: string): string[] | null {
  let files = known.get(tree);
  if (files === undefined) return null;
  if (typeof files === "function") {
    files = files();
    known.set(tree, files);
  }
  return [...files];
}

function compareBytes(a: Uint8Array, aFrom: number, aTo: number, b: Uint8Array): number {
  const n = Math.min(aTo - aFrom, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[aFrom + i]! - b[i]!;
    if (d !== 0) return d;
  }
  return (aTo - aFrom) - b.length;
}

const strict = new TextDecoder("utf-8", { fatal: true });

/**
 * The files of the tree made of `index` without `removed` and with `added` (paths the index does
 * not hold), in byte order of their paths, which is `ls-tree -r`'s. The paths are decoded as
 * vcs/ decodes what git prints (lossless.ts).
 */
export function filesOfIndex(
  index: ParsedIndex,
  removed: ReadonlySet<string>,
  added: readonly string[],
): string[] {
  const extra = added.map(encodeLossless).sort((a, b) => compareBytes(a, 0, a.length, b));
  const { paths, pathAt, pathLength, count } = index;
  let size = extra.reduce((sum, bytes) => sum + bytes.length + 1, 0);
  for (let i = 0; i < count; i++) size += pathLength[i]! + 1;
  // One buffer of every path, each followed by a NUL, decoded in one go.
  const joined = new Uint8Array(size);
  const ends: number[] = [];
  let at = 0;
  let e = 0;
  const put = (bytes: Uint8Array) => {
    joined.set(bytes, at);
    at += bytes.length;
    ends.push(at);
    at += 1;
  };
  for (let i = 0; i < count; i++) {
    const from = pathAt[i]!;
    const to = from + pathLength[i]!;
    while (e < extra.length && compareBytes(paths, from, to, extra[e]!) > 0) put(extra[e++]!);
    put(paths.subarray(from, to));
  }
  while (e < extra.length) put(extra[e++]!);
  let all: string[];
  try {
    all = strict.decode(joined.subarray(0, Math.max(0, at - 1))).split("\0");
    if (ends.length === 0) all = [];
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // A name that is not UTF-8: each path decoded on its own, its odd bytes escaped.
    all = ends.map((end, n) =>
      decodeLossless(joined.subarray(n === 0 ? 0 : ends[n - 1]! + 1, end))
    );
  }
  return removed.size === 0 ? all : all.filter((path) => !removed.has(path));
}
