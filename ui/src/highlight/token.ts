/**
 * The highlighter's shared shapes: a token is a class and a piece of text; a tokenizer reads one
 * line at a time and carries a state (an open block comment or string) to the next line, so a
 * diff can be highlighted line by line.
 */

/** A token class: keyword, string, number, comment, type or constant, property, heading, markup. */
export type TokenClass = "k" | "s" | "n" | "c" | "t" | "p" | "h" | "m" | "";

/** One piece of a line. */
export interface Token {
  cls: TokenClass;
  text: string;
}

/** What is still open at the end of a line (a block comment, a long string), or null. */
export type LineState = string | null;

/** Reads one line. */
export type LineTokenizer = (line: string, state: LineState) => {
  tokens: Token[];
  state: LineState;
};

/** Collects tokens, merging neighbours of one class. */
export class TokenList {
  readonly tokens: Token[] = [];

  push(cls: TokenClass, text: string): void {
    if (text === "") return;
    const last = this.tokens.at(-1);
    if (last && last.cls === cls) last.text += text;
    else this.tokens.push({ cls, text });
  }
}

/** Reads a quoted string from `start` (at the quote), honouring backslash escapes. */
export function quotedEnd(line: string, start: number, quote: string): number {
  let i = start + quote.length;
  while (i < line.length) {
    if (line[i] === "\\") i += 2;
    else if (line.startsWith(quote, i)) return i + quote.length;
    else i++;
  }
  return -1;
}

/** A number literal at the start of `rest` (decimal, hex, binary, with `_` and a suffix). */
export const NUMBER =
  /^(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)[a-zA-Z]*/;
/** An identifier at the start of `rest`. */
export const WORD = /^[A-Za-z_$][\w$]*/;

/** A set of words from a space-separated list. */
export function words(list: string): ReadonlySet<string> {
  return new Set(list.split(/\s+/).filter((w) => w !== ""));
}
