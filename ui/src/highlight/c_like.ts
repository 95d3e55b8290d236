/**
 * The C family's tokenizer (TypeScript/JavaScript, Go, Rust, Java, C/C++): `//` and `/* *\/`
 * comments, quoted strings (template and raw strings across lines), numbers, keywords, and
 * capitalised words as types.
 */
import {
  type LineState,
  type LineTokenizer,
  NUMBER,
  quotedEnd,
  TokenList,
  WORD,
  words,
} from "./token.ts";

/** What sets one C-family language apart. */
export interface CLikeSpec {
  keywords: ReadonlySet<string>;
  constants: ReadonlySet<string>;
  /** Quotes whose strings may span lines (JS's backtick, Go's raw string). */
  multiline: string[];
  /** Quotes of single-line strings. */
  quotes: string[];
  /** `#include` and friends (C/C++), `@Annotation` (Java) are marked as keywords. */
  directive?: RegExp;
}

const COMMENT = "/*";

/** Makes the tokenizer of one C-family language. */
export function cLike(spec: CLikeSpec): LineTokenizer {
  return (line, state) => {
    const out = new TokenList();
    let i = 0;
    let open: LineState = state;
    if (open !== null) {
      const close = open === COMMENT ? "*/" : open;
      const end = open === COMMENT ? line.indexOf(close) : quotedEnd(line, -open.length, open);
      const cls = open === COMMENT ? "c" : "s";
      if (end === -1) {
        out.push(cls, line);
        return { tokens: out.tokens, state: open };
      }
      const stop = open === COMMENT ? end + 2 : end;
      out.push(cls, line.slice(0, stop));
      i = stop;
      open = null;
    }
    if (spec.directive) {
      const m = spec.directive.exec(line.slice(i));
      if (m) {
        out.push("k", m[0]);
        i += m[0].length;
      }
    }
    while (i < line.length) {
      const rest = line.slice(i);
      if (rest.startsWith("//")) {
        out.push("c", rest);
        break;
      }
      if (rest.startsWith(COMMENT)) {
        const end = line.indexOf("*/", i + 2);
        if (end === -1) {
          out.push("c", rest);
          return { tokens: out.tokens, state: COMMENT };
        }
        out.push("c", line.slice(i, end + 2));
        i = end + 2;
        continue;
      }
      const ml = spec.multiline.find((q) => rest.startsWith(q));
      if (ml) {
        const end = quotedEnd(line, i, ml);
        if (end === -1) {
          out.push("s", rest);
          return { tokens: out.tokens, state: ml };
        }
        out.push("s", line.slice(i, end));
        i = end;
        continue;
      }
      const q = spec.quotes.find((q) => rest.startsWith(q));
      if (q) {
        const end = quotedEnd(line, i, q);
        const stop = end === -1 ? line.length : end;
        out.push("s", line.slice(i, stop));
        i = stop;
        continue;
      }
      const word = WORD.exec(rest);
      if (word) {
        const w = word[0];
        const cls = spec.keywords.has(w)
          ? "k"
          : spec.constants.has(w)
          ? "t"
          : /^[A-Z]/.test(w)
          ? "t"
          : "";
        out.push(cls, w);
        i += w.length;
        continue;
      }
      const num = NUMBER.exec(rest);
      if (num) {
        out.push("n", num[0]);
        i += num[0].length;
        continue;
      }
      out.push("", line[i]!);
      i++;
    }
    return { tokens: out.tokens, state: null };
  };
}

const JS_KEYWORDS = words(`
  abstract as async await break case catch class const continue debugger declare default delete
  do else enum export extends finally for from function get if implements import in instanceof
  interface keyof let namespace new of private protected public readonly return satisfies set
  static super switch this throw try type typeof var void while with yield`);

/** TypeScript and JavaScript. */
export const typescript = cLike({
  keywords: JS_KEYWORDS,
  constants: words("true false null undefined NaN Infinity"),
  multiline: ["`"],
  quotes: ['"', "'"],
});

/** Go. */
export const go = cLike({
  keywords: words(`
    break case chan const continue default defer else fallthrough for func go goto if import
    interface map package range return select struct switch type var`),
  constants: words("true false nil iota"),
  multiline: ["`"],
  quotes: ['"', "'"],
});

/** Rust. */
export const rust = cLike({
  keywords: words(`
    as async await break const continue crate dyn else enum extern fn for if impl in let loop
    match mod move mut pub ref return self Self static struct super trait type unsafe use where
    while`),
  constants: words("true false None Some Ok Err"),
  multiline: [],
  quotes: ['"'],
});

/** Java (and Kotlin-ish code reads fine too). */
export const java = cLike({
  keywords: words(`
    abstract assert boolean break byte case catch char class const continue default do double
    else enum extends final finally float for goto if implements import instanceof int interface
    long native new package private protected public record return short static strictfp super
    switch synchronized this throw throws transient try var void volatile while yield`),
  constants: words("true false null"),
  multiline: ['"""'],
  quotes: ['"', "'"],
  directive: /^\s*@\w+/,
});

/** C and C++. */
export const c = cLike({
  keywords: words(`
    auto bool break case catch char class const constexpr continue default delete do double else
    enum explicit extern float for friend goto if inline int long namespace new noexcept operator
    private protected public register return short signed sizeof static struct switch template
    this throw try typedef typename union unsigned using virtual void volatile while`),
  constants: words("true false NULL nullptr"),
  multiline: [],
  quotes: ['"', "'"],
  directive: /^\s*#\s*\w+/,
});
