/**
 * The reference check: every `path:line` an answer cites is looked up in the tree the worker
 * worked in. Forms: `path:12`, `path:10-20`, `path:12:5` (a column), `path#L12`,
 * `path#L10-L20`; paths relative to the worker's folder or the repository root, absolute paths
 * inside the tree, a copy or a read view (mapped back to the repository), and bare or partial
 * names (`app.ts:3`) resolved against the tree's files when exactly one file fits (more are
 * reported as ambiguous, never guessed). A cited line must exist; a symbol the answer names next
 * to the reference (`` `foo()` in src/a.ts:12 ``) must be within a few lines of it or on the line
 * of a definition that encloses it. Extraction is pure; checking reads files through `RefTree`.
 */
import { findSymbol } from "./symbols.ts";

/** The tree references are checked against. */
export interface RefTree {
  /** Every file, relative to the repository root, `/`-separated. */
  files: readonly string[];
  /** The worker's folder, relative to the repository root ("" for the root). */
  cwd: string;
  /** Absolute folders that stand for the repository root (the tree, a copy, a read view). */
  roots: readonly string[];
  /** A file's text (path relative to the root), or null when it cannot be read. */
  read(path: string): Promise<string | null>;
}

/** A reference as the answer wrote it. */
export interface Reference {
  /** The text as written (`src/a.ts:10-20`). */
  ref: string;
  path: string;
  line: number;
  end?: number;
  /** The symbol named next to it, when there is one. */
  symbol?: string;
}

/** One reference, checked. */
export interface RefCheck extends Reference {
  ok: boolean;
  /** The file it resolved to, relative to the repository root. */
  resolved?: string;
  /** Why it failed. */
  reason?: string;
}

/** The result kept in a run's record: how many held, and each that did not and why. */
export interface RefsResult {
  verified: number;
  total: number;
  failed: { ref: string; reason: string }[];
}

/** `checkReferences`' full result: the summary plus every check. */
export interface CheckedRefs extends RefsResult {
  checks: RefCheck[];
}

/** How many lines around a cited line a named symbol may be. */
export const SYMBOL_SLACK = 3;

const REF = new RegExp(
  String.raw`(?<![\w@+~.\-/:#])((?:\.{1,2}/|/)?(?:[\w@+~.\-]+/)*[\w@+~.\-]+)` +
    String.raw`(?::(\d+)(?:\s?[-–]\s?(\d+))?(?::\d+)?|#L(\d+)(?:-L?(\d+))?)(?![\w/])`,
  "g",
);

const FILE_EXT = /\.[A-Za-z][\w]{0,9}$/;
const NO_EXT_NAMES = /(^|\/)(Makefile|Dockerfile|Rakefile|Gemfile|Procfile|Justfile|LICENSE)$/;

/** True when a token before `:N` looks like a file path (not a host, a time or a word). */
function looksLikePath(path: string): boolean {
  if (!/[A-Za-z]/.test(path) || path.includes("//")) return false;
  const base = path.slice(path.lastIndexOf("/") + 1);
  if (base === "" || /^\.+$/.test(base)) return false;
  return FILE_EXT.test(base) || NO_EXT_NAMES.test(path) || (path.includes("/") && base !== "");
}

const SYMBOL = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*(?:\(.*\))?$/;

/** A backticked span that names a symbol (not a path, not a reference). */
function symbolOf(span: string): string | null {
  const text = span.trim();
  if (!SYMBOL.test(text) || text.includes("/")) return null;
  const bare = text.replace(/\(.*\)$/, "");
  // `app.ts` is a file, `config.load` a symbol: a known-looking extension makes it a file.
  if (
    /\.(ts|tsx|js|jsx|mjs|cjs|py|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|md|json|ya?ml|toml|sh|txt|css|html|sql|lock)$/i
      .test(bare)
  ) {
    return null;
  }
  return bare;
}

/** Which backticked symbol sits next to a reference at [start, end) of `line`, if one does. */
function nearbySymbol(line: string, start: number, end: number, refs: [number, number][]) {
  let best: { symbol: string; gap: number } | null = null;
  for (const m of line.matchAll(/`([^`\n]+)`/g)) {
    const s = m.index!;
    const e = s + m[0].length;
    if (s <= start && e >= end) continue; // the reference's own backticks
    const symbol = symbolOf(m[1]!);
    if (symbol === null) continue;
    const [from, to] = e <= start ? [e, start] : s >= end ? [end, s] : [-1, -1];
    if (from < 0) continue;
    // Another reference between them is nearer: the symbol belongs to that one.
    if (refs.some(([rs, re]) => rs >= from && re <= to && !(rs === start && re === end))) continue;
    const gapText = line.slice(from, to).replace(/`/g, "");
    if (gapText.length > 30 || /[.;!?]\s/.test(gapText)) continue;
    const gap = gapText.trim().length + (s >= end ? 0.5 : 0);
    if (best === null || gap < best.gap) best = { symbol, gap };
  }
  return best?.symbol;
}

/** The references an answer cites, in order, each once (pure). */
export function extractReferences(answer: string): Reference[] {
  const out: Reference[] = [];
  const seen = new Set<string>();
  let inFence = false;
  for (const line of answer.replace(/\r\n?/g, "\n").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const matches = [...line.matchAll(REF)].filter((m) => looksLikePath(m[1]!));
    const spans = matches.map((m): [number, number] => [m.index!, m.index! + m[0].length]);
    for (const m of matches) {
      const path = m[1]!;
      const line1 = Number(m[2] ?? m[4]);
      const endText = m[3] ?? m[5];
      const symbol = nearbySymbol(line, m.index!, m.index! + m[0].length, spans);
      const ref: Reference = {
        ref: m[0],
        path,
        line: line1,
        ...(endText === undefined ? {} : { end: Number(endText) }),
        ...(symbol === undefined ? {} : { symbol }),
      };
      const key = `${path}\0${ref.line}\0${ref.end ?? ""}\0${symbol ?? ""}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(ref);
    }
  }
  return out;
}

/** `a/./b/../c` -> `a/c`; null when it climbs above the root. */
export function normalizePath(path: string): string | null {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}

/**
 * The repository paths a path as written names directly (absolute in a root; relative to the
 * worker's folder, then to the root), without searching by name; null when outside every root.
 */
export function directPaths(
  path: string,
  tree: Pick<RefTree, "cwd" | "roots">,
): string[] | null {
  if (path.startsWith("/")) {
    const root = [...tree.roots].sort((a, b) => b.length - a.length).find((r) =>
      path === r || path.startsWith(r.endsWith("/") ? r : `${r}/`)
    );
    if (root === undefined) return null;
    const exact = normalizePath(path.slice(root.length));
    return exact === null ? [] : [exact];
  }
  const candidates = [tree.cwd === "" ? path : `${tree.cwd}/${path}`, path];
  return [...new Set(candidates.map(normalizePath).filter((c): c is string => c !== null))];
}

/**
 * A path of an ignored file (not in the tree's list) that is on disk all the same: what a worker
 * may rightly cite (`dist/app.js:3`). Needs `read`; only paths named directly count.
 */
export async function onDisk(
  path: string,
  tree: Pick<RefTree, "cwd" | "roots"> & { read?: RefTree["read"] },
): Promise<string | null> {
  if (tree.read === undefined) return null;
  for (const candidate of directPaths(path, tree) ?? []) {
    if (candidate !== "" && (await tree.read(candidate)) !== null) return candidate;
  }
  return null;
}

/** A path as a worker wrote it, resolved to one file of the tree, or why it cannot be. */
export function resolvePath(
  path: string,
  tree: Pick<RefTree, "files" | "cwd" | "roots">,
  fileSet: ReadonlySet<string> = new Set(tree.files),
): { path: string } | { reason: string } {
  const direct = directPaths(path, tree);
  if (direct === null) return { reason: "outside the repository" };
  const found = direct.find((c) => fileSet.has(c));
  if (found !== undefined) return { path: found };
  if (path.startsWith("/")) return { reason: "no such file" };
  const tail = normalizePath(path.replace(/^(\.\.?\/)+/, ""));
  if (tail === null || tail === "") return { reason: "no such file" };
  const fits = tree.files.filter((f) => f === tail || f.endsWith(`/${tail}`));
  if (fits.length === 1) return { path: fits[0]! };
  if (fits.length === 0) return { reason: "no such file" };
  const inside = tree.cwd === "" ? [] : fits.filter((f) => f.startsWith(`${tree.cwd}/`));
  if (inside.length === 1) return { path: inside[0]! };
  const shown = fits.slice(0, 3).join(", ") + (fits.length > 3 ? ", …" : "");
  return { reason: `ambiguous: ${fits.length} files match (${shown})` };
}

/** The number of lines of a text (a last line without a newline counts). */
export function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

async function checkOne(
  ref: Reference,
  tree: RefTree,
  fileSet: ReadonlySet<string>,
  texts: Map<string, Promise<string | null>>,
): Promise<RefCheck> {
  let resolved = resolvePath(ref.path, tree, fileSet);
  if ("reason" in resolved && resolved.reason === "no such file") {
    // Not in the tree's list, yet maybe on disk: an ignored file the worker read.
    const ignored = await onDisk(ref.path, tree);
    if (ignored !== null) resolved = { path: ignored };
  }
  if ("reason" in resolved) return { ...ref, ok: false, reason: resolved.reason };
  const at = { ...ref, resolved: resolved.path };
  let text = texts.get(resolved.path);
  if (text === undefined) {
    text = tree.read(resolved.path);
    texts.set(resolved.path, text);
  }
  const content = await text;
  if (content === null) return { ...at, ok: false, reason: "the file cannot be read" };
  const lines = lineCount(content);
  const end = ref.end ?? ref.line;
  if (ref.line < 1) return { ...at, ok: false, reason: `line ${ref.line} does not exist` };
  if (end < ref.line) {
    return { ...at, ok: false, reason: `the range ${ref.line}-${end} runs backwards` };
  }
  if (end > lines) {
    return {
      ...at,
      ok: false,
      reason: `line ${end} is past the end of the file (${lines} line${lines === 1 ? "" : "s"})`,
    };
  }
  if (ref.symbol !== undefined) {
    const found = findSymbol(content, ref.symbol, { line: ref.line, end, slack: SYMBOL_SLACK });
    if (!found.ok) {
      const where = found.elsewhere === undefined ? "" : ` (it is at line ${found.elsewhere})`;
      const span = ref.end === undefined ? `line ${ref.line}` : `lines ${ref.line}-${end}`;
      return {
        ...at,
        ok: false,
        reason: `\`${ref.symbol}\` is not near ${span} nor in its enclosing definition${where}`,
      };
    }
  }
  return { ...at, ok: true };
}

/** Checks every reference of an answer against a tree. */
export async function checkReferences(answer: string, tree: RefTree): Promise<CheckedRefs> {
  const refs = extractReferences(answer);
  const fileSet = new Set(tree.files);
  const texts = new Map<string, Promise<string | null>>();
  const checks = await Promise.all(refs.map((ref) => checkOne(ref, tree, fileSet, texts)));
  return {
    verified: checks.filter((c) => c.ok).length,
    total: checks.length,
    failed: checks.flatMap((c) => c.ok ? [] : [{ ref: c.ref, reason: c.reason ?? "failed" }]),
    checks,
  };
}
