/** The data family's tokenizers: JSON (keys, strings, numbers, literals) and YAML. */
import { type LineTokenizer, quotedEnd, TokenList } from "./token.ts";

const LITERALS = /^(?:true|false|null)\b/;

/** JSON (and JSON with comments). */
export const json: LineTokenizer = (line) => {
  const out = new TokenList();
  let i = 0;
  while (i < line.length) {
    const rest = line.slice(i);
    if (rest.startsWith("//")) {
      out.push("c", rest);
      break;
    }
    if (line[i] === '"') {
      const end = quotedEnd(line, i, '"');
      const stop = end === -1 ? line.length : end;
      const isKey = /^\s*:/.test(line.slice(stop));
      out.push(isKey ? "p" : "s", line.slice(i, stop));
      i = stop;
      continue;
    }
    const lit = LITERALS.exec(rest);
    if (lit) {
      out.push("t", lit[0]);
      i += lit[0].length;
      continue;
    }
    const num = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(rest)?.[0];
    if (num) {
      out.push("n", num);
      i += num.length;
      continue;
    }
    out.push("", line[i]!);
    i++;
  }
  return { tokens: out.tokens, state: null };
};

/** YAML: comments, `key:`, list dashes, quoted and plain scalars, anchors. */
export const yaml: LineTokenizer = (line) => {
  const out = new TokenList();
  const comment = /(^|\s)#.*$/.exec(line);
  const body = comment ? line.slice(0, comment.index + comment[1]!.length) : line;
  const m = /^(\s*(?:-\s+)*)((?:"[^"]*"|'[^']*'|[^\s#'"][^:#]*?)\s*:)(?=\s|$)/.exec(body);
  let i = 0;
  if (m) {
    out.push("", m[1]!);
    out.push("p", m[2]!);
    i = m[0].length;
  } else {
    const dash = /^\s*(?:-\s+)*/.exec(body)![0];
    out.push("", dash);
    i = dash.length;
  }
  const value = body.slice(i);
  const trimmed = value.trim();
  if (/^["']/.test(trimmed)) out.push("s", value);
  else if (/^-?\d[\d_.]*(?:e[+-]?\d+)?$/i.test(trimmed)) out.push("n", value);
  else if (/^(?:true|false|null|yes|no|on|off|~)$/i.test(trimmed)) out.push("t", value);
  else if (/^[&*!]/.test(trimmed)) out.push("k", value);
  else out.push("", value);
  if (comment) out.push("c", line.slice(body.length));
  return { tokens: out.tokens, state: null };
};
