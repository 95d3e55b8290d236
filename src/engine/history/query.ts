/**
 * Turning what a user types into an FTS5 query (pure). Words are matched as words (quoted, so
 * `-`, `:` or `(` in a search are text, not query syntax), all of them must match, a trailing
 * `*` makes a prefix, and "double quotes" keep a phrase.
 */

function quote(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** True when `word` holds something the tokenizer keeps (a letter or a digit). */
function hasToken(word: string): boolean {
  return /[\p{L}\p{N}]/u.test(word);
}

/** The FTS5 query for `text`, or null when it has nothing to search for. */
export function ftsQuery(text: string): string | null {
  const parts: string[] = [];
  for (const m of text.matchAll(/"([^"]*)"?|(\S+)/g)) {
    const phrase = m[1];
    if (phrase !== undefined) {
      if (hasToken(phrase)) parts.push(quote(phrase));
      continue;
    }
    const word = m[2]!;
    const prefix = word.endsWith("*");
    const bare = prefix ? word.replace(/\*+$/, "") : word;
    if (hasToken(bare)) parts.push(prefix ? `${quote(bare)}*` : quote(bare));
  }
  return parts.length === 0 ? null : parts.join(" ");
}
