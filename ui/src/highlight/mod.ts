/**
 * The page's syntax highlighter, our own and small: a tokenizer per language family (c_like.ts:
 * TypeScript/JavaScript, Go, Rust, Java, C/C++; script.ts: Python, Ruby, shell; data.ts: JSON,
 * YAML; markdown.ts), picked by the file's name. It reads line by line and carries what is left
 * open (a block comment, a long string) to the next line, so each side of a diff highlights as
 * the file it comes from.
 */
import { c, go, java, rust, typescript } from "./c_like.ts";
import { json, yaml } from "./data.ts";
import { markdown } from "./markdown.ts";
import { python, ruby, shell } from "./script.ts";
import type { LineState, LineTokenizer, Token } from "./token.ts";

export type { LineState, Token, TokenClass } from "./token.ts";

/** The languages the highlighter knows. */
export const LANGUAGES = {
  typescript,
  go,
  rust,
  java,
  c,
  python,
  ruby,
  shell,
  json,
  yaml,
  markdown,
} as const satisfies Record<string, LineTokenizer>;

/** A language the highlighter knows. */
export type Language = keyof typeof LANGUAGES;

const BY_EXTENSION: Record<string, Language> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "typescript",
  jsx: "typescript",
  mjs: "typescript",
  cjs: "typescript",
  go: "go",
  rs: "rust",
  java: "java",
  kt: "java",
  c: "c",
  h: "c",
  cc: "c",
  cpp: "c",
  cxx: "c",
  hpp: "c",
  hh: "c",
  py: "python",
  pyi: "python",
  rb: "ruby",
  rake: "ruby",
  gemspec: "ruby",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  fish: "shell",
  json: "json",
  jsonc: "json",
  yaml: "yaml",
  yml: "yaml",
  md: "markdown",
  markdown: "markdown",
};

const BY_NAME: Record<string, Language> = {
  Gemfile: "ruby",
  Rakefile: "ruby",
  Dockerfile: "shell",
  Makefile: "shell",
  ".bashrc": "shell",
  ".zshrc": "shell",
  ".profile": "shell",
};

/** The language of a file, from its name; null when the highlighter does not know it. */
export function languageOf(path: string): Language | null {
  const name = path.split("/").at(-1) ?? path;
  // Own keys only: a worker may name a file `constructor` or `x.constructor`.
  if (Object.hasOwn(BY_NAME, name)) return BY_NAME[name]!;
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  const ext = name.slice(dot + 1).toLowerCase();
  return Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext]! : null;
}

/** Tokenizes one line of `lang` given the state the previous line left. */
export function highlightLine(
  lang: Language | null,
  line: string,
  state: LineState = null,
): { tokens: Token[]; state: LineState } {
  if (lang === null) return { tokens: line === "" ? [] : [{ cls: "", text: line }], state: null };
  return LANGUAGES[lang](line, state);
}

/** Tokenizes a whole text, one token list per line. */
export function highlight(lang: Language | null, text: string): Token[][] {
  let state: LineState = null;
  return text.split("\n").map((line) => {
    const r = highlightLine(lang, line, state);
    state = r.state;
    return r.tokens;
  });
}
