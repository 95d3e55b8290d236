/**
 * The script family's tokenizer (Python, Ruby, shell): `#` comments, quoted strings (Python's
 * triple-quoted ones across lines), numbers, keywords, and shell's `$variables`.
 */
import {
  type LineTokenizer,
  NUMBER,
  quotedEnd,
  type TokenClass,
  TokenList,
  WORD,
  words,
} from "./token.ts";

/** What sets one script language apart. */
export interface ScriptSpec {
  keywords: ReadonlySet<string>;
  constants: ReadonlySet<string>;
  /** Quotes whose strings may span lines. */
  multiline: string[];
  quotes: string[];
  /** Marks `$NAME`, `${NAME}` and `$1` as constants (shell). */
  variables?: boolean;
  /** Marks `@name` (Python decorators, Ruby instance variables) and `:symbol` (Ruby). */
  sigils?: RegExp;
}

/** Makes the tokenizer of one script language. */
export function script(spec: ScriptSpec): LineTokenizer {
  return (line, state) => {
    const out = new TokenList();
    let i = 0;
    if (state !== null) {
      const end = quotedEnd(line, -state.length, state);
      if (end === -1) {
        out.push("s", line);
        return { tokens: out.tokens, state };
      }
      out.push("s", line.slice(0, end));
      i = end;
    }
    while (i < line.length) {
      const rest = line.slice(i);
      const ch = line[i]!;
      if (ch === "#" && !(spec.variables && i > 0 && /[\w$]/.test(line[i - 1]!))) {
        out.push("c", rest);
        break;
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
      if (spec.variables && ch === "$") {
        const m = /^\$(?:\{[^}]*\}|\w+|[@#?$!*-])/.exec(rest);
        if (m) {
          out.push("t", m[0]);
          i += m[0].length;
          continue;
        }
      }
      const sigil = spec.sigils?.exec(rest);
      if (sigil && (i === 0 || !/\w/.test(line[i - 1]!))) {
        out.push("t", sigil[0]);
        i += sigil[0].length;
        continue;
      }
      const word = WORD.exec(rest);
      if (word && (i === 0 || !/[\w-]/.test(line[i - 1]!))) {
        const w = word[0];
        const cls: TokenClass = spec.keywords.has(w) ? "k" : spec.constants.has(w) ? "t" : "";
        out.push(cls, w);
        i += w.length;
        continue;
      }
      const num = NUMBER.exec(rest);
      if (num && (i === 0 || !/\w/.test(line[i - 1]!))) {
        out.push("n", num[0]);
        i += num[0].length;
        continue;
      }
      out.push("", ch);
      i++;
    }
    return { tokens: out.tokens, state: null };
  };
}

/** Python. */
export const python = script({
  keywords: words(`
    and as assert async await break class continue def del elif else except finally for from
    global if import in is lambda match nonlocal not or pass raise return try while with yield`),
  constants: words("True False None self cls"),
  multiline: ['"""', "'''"],
  quotes: ['"', "'"],
  sigils: /^@[\w.]+/,
});

/** Ruby. */
export const ruby = script({
  keywords: words(`
    alias and begin break case class def defined? do else elsif end ensure for if in module next
    not or redo rescue retry return self super then undef unless until when while yield require
    attr_reader attr_accessor private`),
  constants: words("true false nil"),
  multiline: [],
  quotes: ['"', "'"],
  sigils: /^(?:@@?\w+|:[a-zA-Z_]\w*[?!]?)/,
});

/** POSIX shells, bash, zsh. */
export const shell = script({
  keywords: words(`
    if then else elif fi case esac for while until do done in function return local export
    readonly declare set unset shift exit trap source`),
  constants: words("true false"),
  multiline: [],
  quotes: ['"', "'"],
  variables: true,
});
