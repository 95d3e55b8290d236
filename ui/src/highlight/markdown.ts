/** Markdown's tokenizer: headings, fenced code, lists, quotes, inline code, emphasis and links. */
import { type LineTokenizer, TokenList } from "./token.ts";

const FENCE = "```";
const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*|__[^_]+__)|(\[[^\]]*\]\([^)]*\))/g;

/** Markdown. Inside a fenced block every line is a string. */
export const markdown: LineTokenizer = (line, state) => {
  const out = new TokenList();
  const fence = /^\s*(```|~~~)/.test(line);
  if (state === FENCE) {
    out.push("s", line);
    return { tokens: out.tokens, state: fence ? null : FENCE };
  }
  if (fence) {
    out.push("s", line);
    return { tokens: out.tokens, state: FENCE };
  }
  if (/^\s{0,3}#{1,6}\s/.test(line)) {
    out.push("h", line);
    return { tokens: out.tokens, state: null };
  }
  const lead = /^\s*(?:[-*+]\s|\d+[.)]\s|>\s?)?/.exec(line)![0];
  out.push("k", lead);
  const rest = line.slice(lead.length);
  let at = 0;
  for (const m of rest.matchAll(INLINE)) {
    out.push("", rest.slice(at, m.index));
    out.push(m[1] ? "s" : m[2] ? "m" : "p", m[0]);
    at = m.index + m[0].length;
  }
  out.push("", rest.slice(at));
  return { tokens: out.tokens, state: null };
};
