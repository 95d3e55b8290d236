/**
 * A small Markdown reader for workers' answers (pure): paragraphs (a line break stays a line
 * break), headings, lists (nested), block quotes, fenced code, tables, rules; inside them inline
 * code, emphasis, strong, links and bare web addresses. It makes a tree of plain data that the
 * view turns into elements, so nothing of the text is ever read as HTML: `<script>` stays the
 * text it is. A link is a link only to `http:`, `https:` or `mailto:`; any other target
 * (`javascript:`, `data:`, a relative path) stays text.
 */

/** A piece of a line. */
export type Inline =
  | { t: "text"; text: string }
  | { t: "br" }
  | { t: "code"; text: string }
  | { t: "em" | "strong"; children: Inline[] }
  | { t: "link"; href: string; children: Inline[] };

/** A block of the text. */
export type Block =
  | { t: "p"; inline: Inline[] }
  | { t: "h"; level: number; inline: Inline[] }
  | { t: "code"; lang: string; text: string }
  | { t: "list"; ordered: boolean; start: number; items: Block[][] }
  | { t: "quote"; blocks: Block[] }
  | { t: "table"; head: Inline[][]; rows: Inline[][][] }
  | { t: "hr" };

/** How deep lists and quotes may nest, and emphasis inside emphasis. */
const MAX_DEPTH = 8;
/** How far ahead an emphasis looks for its closing mark (keeps stray marks linear). */
const MAX_SPAN = 2_000;

// Every pattern here is linear on any line: an answer is a worker's, and may be hostile.
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])(\s+|$)(.*)$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const TABLE_RULE = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** Reads a Markdown text into blocks. */
export function parseMarkdown(text: string): Block[] {
  return blocks(text.replace(/\r\n?/g, "\n").split("\n"), 0);
}

function blank(line: string): boolean {
  return line.trim() === "";
}

/** A fence's mark and language, or null when the line is no fence (a ``` fence's info has no `). */
function fenceOf(line: string): { mark: string; lang: string } | null {
  const m = FENCE.exec(line);
  if (m === null || (m[1]![0] === "`" && m[2]!.includes("`"))) return null;
  return { mark: m[1]!, lang: m[2]!.trim().split(/\s/, 1)[0]!.toLowerCase() };
}

/** A heading's level and text (its closing `#`s taken off), or null. */
function headingOf(line: string): { level: number; text: string } | null {
  const m = HEADING.exec(line);
  if (m === null) return null;
  let text = line.slice(m[0].length).trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") end--;
  if (end === 0) text = "";
  else if (end < text.length && /\s/.test(text[end - 1]!)) text = text.slice(0, end).trimEnd();
  return { level: m[1]!.length, text };
}

/** True when the line starts a block of its own (it ends a paragraph). */
function starts(line: string): boolean {
  return fenceOf(line) !== null || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) ||
    ITEM.test(line);
}

function cells(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

function blocks(lines: string[], depth: number): Block[] {
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (blank(line)) {
      i++;
      continue;
    }
    const fence = fenceOf(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length) {
        const close = lines[i]!.trim();
        if (close.length >= fence.mark.length && close === fence.mark[0]!.repeat(close.length)) {
          break;
        }
        body.push(lines[i]!);
        i++;
      }
      i++;
      out.push({ t: "code", lang: fence.lang, text: body.join("\n") });
      continue;
    }
    const heading = headingOf(line);
    if (heading) {
      out.push({ t: "h", level: heading.level, inline: inline(heading.text, depth) });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push({ t: "hr" });
      i++;
      continue;
    }
    if (QUOTE.test(line) && depth < MAX_DEPTH) {
      const body: string[] = [];
      while (i < lines.length && !blank(lines[i]!)) {
        const q = QUOTE.exec(lines[i]!);
        body.push(q ? q[1]! : lines[i]!);
        i++;
      }
      out.push({ t: "quote", blocks: blocks(body, depth + 1) });
      continue;
    }
    const item = ITEM.exec(line);
    if (item && depth < MAX_DEPTH) {
      i = list(lines, i, depth, out);
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]!)) {
      const head = cells(line).map((c) => inline(c, depth));
      const rows: Inline[][][] = [];
      i += 2;
      while (i < lines.length && !blank(lines[i]!) && lines[i]!.includes("|")) {
        rows.push(cells(lines[i]!).map((c) => inline(c, depth)));
        i++;
      }
      out.push({ t: "table", head, rows });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && !blank(lines[i]!) && (para.length === 0 || !starts(lines[i]!))) {
      para.push(lines[i]!.trim());
      i++;
    }
    out.push({ t: "p", inline: inline(para.join("\n"), depth) });
  }
  return out;
}

/** Reads the list starting at line `at` into `out`; answers the line after it. */
function list(lines: string[], at: number, depth: number, out: Block[]): number {
  const first = ITEM.exec(lines[at]!)!;
  const ordered = /\d/.test(first[2]!);
  const items: Block[][] = [];
  let i = at;
  while (i < lines.length) {
    const m = ITEM.exec(lines[i]!);
    if (m === null || /\d/.test(m[2]!) !== ordered) break;
    const indent = m[1]!.length + m[2]!.length + Math.max(1, Math.min(m[3]!.length, 4));
    const body = [m[4]!];
    i++;
    while (i < lines.length) {
      const line = lines[i]!;
      const lead = line.length - line.trimStart().length;
      if (blank(line)) {
        // A blank line inside an item goes on only when the item's text goes on after it.
        const next = lines.slice(i + 1).find((l) => !blank(l));
        if (next === undefined || next.length - next.trimStart().length < indent) break;
        body.push("");
      } else if (lead >= indent) body.push(line.slice(indent));
      else if (ITEM.test(line) || starts(line)) break;
      else body.push(line.trim());
      i++;
    }
    items.push(blocks(body, depth + 1));
    // Blank lines between items keep the list going.
    let j = i;
    while (j < lines.length && blank(lines[j]!)) j++;
    if (j < lines.length && j > i && ITEM.test(lines[j]!)) i = j;
  }
  out.push({ t: "list", ordered, start: ordered ? parseInt(first[2]!, 10) : 1, items });
  return i;
}

/** The schemes a link may have. */
const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/** The target as a link may use it, or null when it may not be a link. */
export function safeHref(target: string): string | null {
  const href = target.trim();
  // Control characters and spaces can hide a scheme from a reader; a link never needs them.
  // deno-lint-ignore no-control-regex
  if (href === "" || /[\u0000-\u0020\u007f]/.test(href)) return null;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  return SAFE_SCHEMES.has(url.protocol) ? url.href : null;
}

const PUNCTUATION = /[!-/:-@[-`{-~]/;
const BARE_URL = /^https?:\/\/[^\s<>"'`]+/;

/** Reads the inline Markdown of a text. */
export function inline(text: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  let plain = "";
  // Per mark, where the closing marks seen so far end: none before it can close anything.
  const dead = new Map<string, number>();
  // Backtick runs that occur nowhere further on (none later can close).
  const unclosed = new Set<string>();
  // Where each `[` closes (found once, in one pass), when the text has one.
  let closes: Map<number, number> | null = null;
  const flush = () => {
    if (plain !== "") out.push({ t: "text", text: plain });
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\\" && i + 1 < text.length && PUNCTUATION.test(text[i + 1]!)) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (c === "\n") {
      flush();
      out.push({ t: "br" });
      i++;
      continue;
    }
    if (c === "`") {
      const run = /^`+/.exec(text.slice(i, i + 32))![0];
      const close = unclosed.has(run) ? -1 : text.indexOf(run, i + run.length);
      if (close < 0) unclosed.add(run);
      if (close > 0 && text[close + run.length] !== "`") {
        flush();
        let code = text.slice(i + run.length, close).replace(/\n/g, " ");
        if (/^ .* $/.test(code) && code.trim() !== "") code = code.slice(1, -1);
        out.push({ t: "code", text: code });
        i = close + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    if ((c === "*" || c === "_") && depth < MAX_DEPTH) {
      const span = emphasis(text, i, depth, dead);
      if (span !== null) {
        flush();
        out.push(span.node);
        i = span.end;
        continue;
      }
    }
    if (c === "[" || (c === "!" && text[i + 1] === "[")) {
      closes ??= bracketPairs(text);
      const link = linkAt(text, c === "!" ? i + 1 : i, depth, closes);
      if (link !== null) {
        flush();
        // An image is never loaded: its description stands in its place.
        if (c === "!") out.push(...link.children);
        else if (link.href === null) out.push(...link.children);
        else out.push({ t: "link", href: link.href, children: link.children });
        i = link.end;
        continue;
      }
    }
    if (c === "<") {
      const auto = /^<((?:https?|mailto):[^\s<>]+)>/.exec(text.slice(i, i + 2_000));
      const href = auto ? safeHref(auto[1]!) : null;
      if (auto && href !== null) {
        flush();
        out.push({ t: "link", href, children: [{ t: "text", text: auto[1]! }] });
        i += auto[0].length;
        continue;
      }
    }
    if ((c === "h" || c === "H") && (i === 0 || /[\s(]/.test(text[i - 1]!))) {
      const bare = BARE_URL.exec(text.slice(i, i + 2_000));
      if (bare) {
        // A sentence's last stop or closing bracket is not part of the address.
        let end = bare[0].length;
        while (end > 0 && ".,;:!?)]".includes(bare[0][end - 1]!)) end--;
        const url = bare[0].slice(0, end);
        const href = safeHref(url);
        if (href !== null) {
          flush();
          out.push({ t: "link", href, children: [{ t: "text", text: url }] });
          i += url.length;
          continue;
        }
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

/** The emphasis or strong span opening at `at`, or null when its marks do not pair up. */
function emphasis(
  text: string,
  at: number,
  depth: number,
  dead: Map<string, number>,
): { node: Inline; end: number } | null {
  const c = text[at]!;
  const double = text[at + 1] === c;
  const mark = double ? c + c : c;
  const after = text[at + mark.length];
  // An opening mark is followed by a non-space; `_` inside a word (snake_case) is no mark.
  if (after === undefined || /\s/.test(after) || after === c) return null;
  if (c === "_" && at > 0 && /\w/.test(text[at - 1]!)) return null;
  const limit = Math.min(text.length, at + MAX_SPAN);
  // Whether a mark closes depends on the mark alone (what is around it), never on the opener:
  // one that failed for an earlier opener fails for this one too.
  let j = Math.max(at + mark.length + 1, dead.get(mark) ?? 0);
  while (j < limit) {
    const close = text.indexOf(mark, j);
    if (close < 0 || close >= limit) {
      dead.set(mark, close < 0 ? Infinity : limit);
      return null;
    }
    const before = text[close - 1]!;
    const next = text[close + mark.length];
    const wordAfter = c === "_" && next !== undefined && /\w/.test(next);
    const longer = !double && next === c;
    if (!/\s/.test(before) && !wordAfter && !longer) {
      return {
        node: {
          t: double ? "strong" : "em",
          children: inline(text.slice(at + mark.length, close), depth + 1),
        },
        end: close + mark.length,
      };
    }
    j = close + (longer ? 2 : 1);
  }
  dead.set(mark, Math.max(dead.get(mark) ?? 0, limit));
  return null;
}

/** Where each `[` of the text closes: its matching `]` (a `\\` escapes either). */
function bracketPairs(text: string): Map<number, number> {
  const pairs = new Map<number, number>();
  const open: number[] = [];
  for (let j = 0; j < text.length; j++) {
    const ch = text[j];
    if (ch === "\\") j++;
    else if (ch === "[") open.push(j);
    else if (ch === "]" && open.length > 0) pairs.set(open.pop()!, j);
  }
  return pairs;
}

/** The link `[text](target)` opening at `at`, or null when it is not one. */
function linkAt(
  text: string,
  at: number,
  depth: number,
  closes: Map<number, number>,
): { href: string | null; children: Inline[]; end: number } | null {
  const close = closes.get(at);
  if (close === undefined || text[close + 1] !== "(") return null;
  const target = /^\(\s*<?([^\s()<>]*)>?\s*(?:"[^"]*"\s*)?\)/.exec(
    text.slice(close + 1, close + 1 + MAX_SPAN),
  );
  if (target === null) return null;
  return {
    href: safeHref(target[1]!),
    children: inline(text.slice(at + 1, close), depth + 1),
    end: close + 1 + target[0].length,
  };
}
