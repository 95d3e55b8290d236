/**
 * The page's Markdown reader (ui/src/model/markdown.ts): the subset workers' answers use, read
 * into plain data; raw HTML stays text, a link is a link only to http(s) or mailto, and stray
 * marks cost linear time.
 */
import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import {
  type Block,
  type Inline,
  inline,
  parseMarkdown,
  safeHref,
} from "../../ui/src/model/markdown.ts";

const text = (t: string): Inline => ({ t: "text", text: t });

Deno.test("parseMarkdown() reads paragraphs (line breaks kept), headings, rules and code", () => {
  assertEquals(
    parseMarkdown("SPEC: PASS\nQUALITY: APPROVED\n\n## Notes\n\n---\n```ts\nconst a = 1;\n```"),
    [
      { t: "p", inline: [text("SPEC: PASS"), { t: "br" }, text("QUALITY: APPROVED")] },
      { t: "h", level: 2, inline: [text("Notes")] },
      { t: "hr" },
      { t: "code", lang: "ts", text: "const a = 1;" },
    ] satisfies Block[],
  );
});

Deno.test("parseMarkdown() reads nested lists, ordered lists with their start, quotes and tables", () => {
  const blocks = parseMarkdown(
    "- one\n- two\n  - two.a\n\n3. three\n4. four\n\n> quoted\n\n| a | b |\n|---|:-:|\n| 1 | `x` |",
  );
  assertEquals(blocks[0], {
    t: "list",
    ordered: false,
    start: 1,
    items: [
      [{ t: "p", inline: [text("one")] }],
      [
        { t: "p", inline: [text("two")] },
        { t: "list", ordered: false, start: 1, items: [[{ t: "p", inline: [text("two.a")] }]] },
      ],
    ],
  });
  assertEquals(blocks[1], {
    t: "list",
    ordered: true,
    start: 3,
    items: [[{ t: "p", inline: [text("three")] }], [{ t: "p", inline: [text("four")] }]],
  });
  assertEquals(blocks[2], { t: "quote", blocks: [{ t: "p", inline: [text("quoted")] }] });
  assertEquals(blocks[3], {
    t: "table",
    head: [[text("a")], [text("b")]],
    rows: [[[text("1")], [{ t: "code", text: "x" }]]],
  });
});

Deno.test("inline() reads code, emphasis, strong and links; snake_case and 2 * 3 stay text", () => {
  assertEquals(inline("see `src/a.ts:3` and **bold** and *em* and _em_"), [
    text("see "),
    { t: "code", text: "src/a.ts:3" },
    text(" and "),
    { t: "strong", children: [text("bold")] },
    text(" and "),
    { t: "em", children: [text("em")] },
    text(" and "),
    { t: "em", children: [text("em")] },
  ]);
  assertEquals(inline("max_retry_count is 2 * 3 * 4"), [text("max_retry_count is 2 * 3 * 4")]);
  assertEquals(inline("[docs](https://deno.com/x) and <https://a.b/c> and https://e.f/g."), [
    { t: "link", href: "https://deno.com/x", children: [text("docs")] },
    text(" and "),
    { t: "link", href: "https://a.b/c", children: [text("https://a.b/c")] },
    text(" and "),
    { t: "link", href: "https://e.f/g", children: [text("https://e.f/g")] },
    text("."),
  ]);
  assertEquals(inline("\\*not em\\*"), [text("*not em*")]);
});

Deno.test("raw HTML stays text; unsafe link targets are not links; images are never loaded", () => {
  assertEquals(parseMarkdown('<img src=x onerror="alert(1)"> <script>alert(2)</script>'), [
    { t: "p", inline: [text('<img src=x onerror="alert(1)"> <script>alert(2)</script>')] },
  ]);
  for (
    const target of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "data:text/html,x",
      "vbscript:x",
      "java\tscript:x",
      "/api/runs",
      "src/a.ts",
    ]
  ) {
    assertEquals(safeHref(target), null, target);
    const nodes = inline(`[click](${target})`);
    ok(!nodes.some((n) => n.t === "link"), target);
  }
  assertEquals(inline("![alt text](https://evil.example/pixel.png)"), [text("alt text")]);
  assertEquals(safeHref("mailto:a@b.c"), "mailto:a@b.c");
});

Deno.test("stray marks stay text and deep nesting stops at a depth (a long answer never hangs the page)", () => {
  const stray = "*a _b [d ".repeat(20_000) + "`c";
  const [para] = parseMarkdown(stray);
  // (Compared as a flag: a failing deep-equal would diff two 180 KB strings.)
  ok(
    para?.t === "p" && para.inline.length === 1 && para.inline[0]!.t === "text" &&
      para.inline[0]!.text === stray.trim(),
  );
  // Quotes in quotes stop nesting at eight; what is deeper is text.
  let block: Block | undefined = parseMarkdown("> ".repeat(5_000) + "deep")[0];
  let depth = 0;
  while (block?.t === "quote") {
    depth++;
    block = block.blocks[0];
  }
  assertEquals(depth, 8);
  ok(parseMarkdown("- ".repeat(5_000) + "deep").length > 0);
});

Deno.test("hostile lines read in linear time: a heading of spaces, a fence's long info, brackets", () => {
  const spaces = " ".repeat(100_000);
  assertEquals(parseMarkdown(`# a${spaces}b ##`), [
    { t: "h", level: 1, inline: [text(`a${spaces}b`)] },
  ]);
  assertEquals(parseMarkdown("## closed ##"), [{ t: "h", level: 2, inline: [text("closed")] }]);
  assertEquals(parseMarkdown("#hashtag"), [{ t: "p", inline: [text("#hashtag")] }]);
  // A ``` line whose info holds a backtick is no fence.
  const info = "a".repeat(100_000);
  assertEquals(parseMarkdown("```" + info + "`")[0]?.t, "p");
  assertEquals(parseMarkdown("```ts extra\nx\n````"), [{ t: "code", lang: "ts", text: "x" }]);
  const open = "[".repeat(100_000);
  const [para] = parseMarkdown(open + "](https://a.b/c)");
  ok(para?.t === "p");
  // The innermost bracket pairs with the one `]`: a link, inside the text of the others.
  const link = para.inline.find((n) => n.t === "link");
  ok(link !== undefined && link.t === "link" && link.href === "https://a.b/c");
  const url = "http://a" + ".".repeat(1_500) + "x ";
  ok(parseMarkdown(url.repeat(100)).length === 1);
  const title = `[a](https://a.b/c${" ".repeat(1_500)})`;
  assertEquals(inline(title.repeat(50)).length, 50);
});
