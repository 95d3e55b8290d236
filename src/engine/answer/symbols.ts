/**
 * Finding a named symbol at a cited place (pure): within a few lines of the cited line (or
 * range), or on the line of a definition that encloses it. A definition encloses a line when it
 * is the nearest definition line above it with less indentation (and so on outwards), which
 * holds for indented code in any of the usual languages without parsing it.
 */

/** Where a symbol was looked for. */
export interface SymbolPlace {
  line: number;
  end: number;
  slack: number;
}

/** Whether the symbol is at the place; if not, the first line it is on elsewhere. */
export interface SymbolFound {
  ok: boolean;
  elsewhere?: number;
}

const DEFINITION = new RegExp(
  [
    String.raw`^\s*(export\s+)?(default\s+)?(declare\s+)?(abstract\s+)?(async\s+)?` +
    String.raw`(function\*?|class|interface|type|enum|namespace|module|const|let|var)\b`,
    String.raw`^\s*(async\s+)?(def|class)\s`,
    String.raw`^\s*(pub(\(\w+\))?\s+)?(async\s+)?(fn|struct|enum|trait|impl|mod|type)\b`,
    String.raw`^\s*func\s`,
    String.raw`^\s*((public|private|protected|static|final|override|readonly|async|get|set)\s+)*` +
    String.raw`[\w$<>\[\], ?]*[\w$]+\s*\([^;]*\)\s*(:[^=]*)?[{:]?\s*$`,
    String.raw`^\s*[\w$.]+\s*[:=]\s*(async\s*)?(function\b|\([^)]*\)\s*=>|[\w$]+\s*=>)`,
  ].join("|"),
);

function indentOf(line: string): number {
  const m = /^[ \t]*/.exec(line)![0];
  return m.replace(/\t/g, "    ").length;
}

function wordPattern(word: string): RegExp {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`);
}

/** The names a symbol may appear as: `Foo.bar` as itself or as `bar`. */
function namesOf(symbol: string): RegExp[] {
  const parts = symbol.split(/\.|::|#|->/).filter(Boolean);
  const names = new Set([symbol, parts.at(-1) ?? symbol]);
  return [...names].map(wordPattern);
}

/** The definition lines enclosing `line` (1-based), innermost first, as 0-based indexes. */
function enclosing(lines: string[], line: number): number[] {
  const out: number[] = [];
  const start = Math.min(line - 1, lines.length - 1);
  let indent = indentOf(lines[start] ?? "");
  // The cited line may be a definition itself: it counts as its own enclosing one.
  if (DEFINITION.test(lines[start] ?? "")) out.push(start);
  for (let i = start - 1; i >= 0 && indent > 0; i--) {
    const text = lines[i]!;
    if (text.trim() === "") continue;
    const at = indentOf(text);
    if (at < indent && DEFINITION.test(text)) {
      out.push(i);
      indent = at;
    } else if (at < indent) {
      indent = at;
    }
  }
  return out;
}

/** Looks for `symbol` at a cited place of `content`. */
export function findSymbol(content: string, symbol: string, place: SymbolPlace): SymbolFound {
  const lines = content.split("\n");
  const names = namesOf(symbol);
  const has = (i: number) => names.some((p) => p.test(lines[i] ?? ""));
  const from = Math.max(0, place.line - 1 - place.slack);
  const to = Math.min(lines.length - 1, place.end - 1 + place.slack);
  for (let i = from; i <= to; i++) if (has(i)) return { ok: true };
  if (enclosing(lines, place.line).some(has)) return { ok: true };
  const elsewhere = lines.findIndex((_, i) => has(i));
  return elsewhere < 0 ? { ok: false } : { ok: false, elsewhere: elsewhere + 1 };
}
