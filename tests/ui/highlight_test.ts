import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { highlight, highlightLine, type Language, languageOf } from "../../ui/src/highlight/mod.ts";
import type { Token } from "../../ui/src/highlight/mod.ts";

/** The line's tokens as `cls:text`, plain text as its words, for short assertions. */
function show(tokens: Token[]): string[] {
  return tokens.flatMap((t) =>
    t.cls === "" ? t.text.split(/\s+/).filter((w) => w !== "") : [`${t.cls}:${t.text.trim()}`]
  );
}

function line(lang: Language, text: string): string[] {
  return show(highlightLine(lang, text).tokens);
}

Deno.test("languageOf() picks the language from the file name", () => {
  const cases: Record<string, Language | null> = {
    "src/a.ts": "typescript",
    "ui/app.tsx": "typescript",
    "x.mjs": "typescript",
    "main.go": "go",
    "lib.rs": "rust",
    "A.java": "java",
    "a.c": "c",
    "a.hpp": "c",
    "a.py": "python",
    "a.rb": "ruby",
    "Gemfile": "ruby",
    "run.sh": "shell",
    "deno.json": "json",
    ".github/ci.yml": "yaml",
    "README.md": "markdown",
    "LICENSE": null,
    "a.unknown": null,
  };
  for (const [path, lang] of Object.entries(cases)) assertEquals(languageOf(path), lang, path);
});

Deno.test("highlightLine() marks TypeScript keywords, strings, numbers, comments and types", () => {
  assertEquals(line("typescript", 'const n: Foo = 42; // the answer "x"'), [
    "k:const",
    "n:",
    "t:Foo",
    "=",
    "n:42",
    ";",
    'c:// the answer "x"',
  ]);
  assertEquals(line("typescript", 'import { a } from "./a.ts";'), [
    "k:import",
    "{",
    "a",
    "}",
    "k:from",
    's:"./a.ts"',
    ";",
  ]);
  assertEquals(line("typescript", String.raw`s = 'it\'s'; x = 0x1F`), [
    "s",
    "=",
    String.raw`s:'it\'s'`,
    ";",
    "x",
    "=",
    "n:0x1F",
  ]);
});

Deno.test("highlight() carries block comments and template strings across lines", () => {
  const lines = highlight("typescript", "a /* one\ntwo */ b\nconst t = `x\ny` + 1").map(show);
  assertEquals(lines, [
    ["a", "c:/* one"],
    ["c:two */", "b"],
    ["k:const", "t", "=", "s:`x"],
    ["s:y`", "+", "n:1"],
  ]);
});

Deno.test("highlightLine() knows Go, Rust, Java and C/C++", () => {
  assertEquals(line("go", "func main() { return nil }"), [
    "k:func",
    "main()",
    "{",
    "k:return",
    "t:nil",
    "}",
  ]);
  assertEquals(line("rust", "pub fn f(x: &mut u8) -> Option<u8> { None }").slice(0, 4), [
    "k:pub",
    "k:fn",
    "f(x:",
    "&",
  ]);
  assertEquals(line("java", "@Override public void run() {}").slice(0, 3), [
    "k:@Override",
    "k:public",
    "k:void",
  ]);
  assertEquals(line("c", "#include <stdio.h>"), ["k:#include", "<stdio.h>"]);
  assertEquals(line("c", "int main(void) { return 0; }").slice(0, 2), ["k:int", "main("]);
});

Deno.test("highlightLine() knows Python, Ruby and shell", () => {
  assertEquals(line("python", "def f(self): return None  # done"), [
    "k:def",
    "f(",
    "t:self",
    "):",
    "k:return",
    "t:None",
    "c:# done",
  ]);
  assertEquals(highlight("python", 'x = """doc\nstill doc"""\ny = 1').map(show), [
    ["x", "=", 's:"""doc'],
    ['s:still doc"""'],
    ["y", "=", "n:1"],
  ]);
  assertEquals(line("python", "@dataclass"), ["t:@dataclass"]);
  assertEquals(line("ruby", "def go(x) :sym @ivar end"), [
    "k:def",
    "go(x)",
    "t::sym",
    "t:@ivar",
    "k:end",
  ]);
  assertEquals(line("shell", 'if [ -n "$HOME" ]; then echo $1 ${X} # c; fi'), [
    "k:if",
    "[",
    "-n",
    's:"$HOME"',
    "];",
    "k:then",
    "echo",
    "t:$1",
    "t:${X}",
    "c:# c; fi",
  ]);
  assertEquals(line("shell", "echo a#b"), ["echo", "a#b"]);
});

Deno.test("highlightLine() knows JSON, YAML and Markdown", () => {
  assertEquals(line("json", '{ "name": "x", "n": -1.5e3, "ok": true, "z": null }'), [
    "{",
    'p:"name"',
    ":",
    's:"x"',
    ",",
    'p:"n"',
    ":",
    "n:-1.5e3",
    ",",
    'p:"ok"',
    ":",
    "t:true",
    ",",
    'p:"z"',
    ":",
    "t:null",
    "}",
  ]);
  assertEquals(line("yaml", "  - name: build # the job"), ["-", "p:name:", "build", "c:# the job"]);
  assertEquals(line("yaml", "retries: 3"), ["p:retries:", "n:3"]);
  assertEquals(line("yaml", 'on: "push"'), ["p:on:", 's:"push"']);
  assertEquals(line("markdown", "## Title"), ["h:## Title"]);
  assertEquals(line("markdown", "- use `deno task` and **bold** [a](b)"), [
    "k:-",
    "use",
    "s:`deno task`",
    "and",
    "m:**bold**",
    "p:[a](b)",
  ]);
  assertEquals(highlight("markdown", "```ts\nconst x\n```\ntext").map(show), [
    ["s:```ts"],
    ["s:const x"],
    ["s:```"],
    ["text"],
  ]);
});

Deno.test("highlightLine() of an unknown language is the plain line", () => {
  assertEquals(highlightLine(null, "a b").tokens, [{ cls: "", text: "a b" }]);
  assertEquals(highlightLine(null, "").tokens, []);
});

Deno.test("every language keeps every character of a line, in order", () => {
  const sample = 'x = "a\\"b" /* c */ # d // e `f` 0x1 @g $h :i **j** - k: l';
  for (const lang of languages()) {
    const tokens = highlightLine(lang, sample).tokens;
    assertEquals(tokens.map((t) => t.text).join(""), sample, lang);
  }
});

function languages(): Language[] {
  return [
    "typescript",
    "go",
    "rust",
    "java",
    "c",
    "python",
    "ruby",
    "shell",
    "json",
    "yaml",
    "markdown",
  ];
}

Deno.test("languageOf() knows no language for files named like an object's property", () => {
  for (const path of ["constructor", "src/toString", "a.constructor", "b.__proto__", "c.valueOf"]) {
    assertEquals(languageOf(path), null, path);
    assertEquals(highlight(languageOf(path), "x = 1"), [[{ cls: "", text: "x = 1" }]]);
  }
});
