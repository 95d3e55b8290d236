/**
 * A worker's Markdown as elements (model/markdown.ts reads it): every piece of its text is a text
 * node, never HTML, so an answer holding `<img onerror=...>` or `<script>` shows those characters
 * and runs nothing. Fenced code is highlighted when its language is one the highlighter knows.
 */
import { useMemo } from "preact/hooks";
import type { JSX } from "preact";
import { highlight, type Language, languageOf, LANGUAGES } from "../highlight/mod.ts";
import { type Block, type Inline, parseMarkdown } from "../model/markdown.ts";
import { Tokens } from "./code.tsx";

function languageNamed(info: string): Language | null {
  if (info === "") return null;
  if (Object.hasOwn(LANGUAGES, info)) return info as Language;
  return languageOf(`x.${info}`);
}

function Inlines({ items }: { items: Inline[] }): JSX.Element {
  return (
    <>
      {items.map((n, i) => {
        switch (n.t) {
          case "text":
            return n.text;
          case "br":
            return <br key={i} />;
          case "code":
            return <code key={i}>{n.text}</code>;
          case "em":
            return (
              <em key={i}>
                <Inlines items={n.children} />
              </em>
            );
          case "strong":
            return (
              <strong key={i}>
                <Inlines items={n.children} />
              </strong>
            );
          case "link":
            return (
              <a key={i} href={n.href} target="_blank" rel="noopener noreferrer nofollow">
                <Inlines items={n.children} />
              </a>
            );
        }
      })}
    </>
  );
}

function Blocks({ items }: { items: Block[] }): JSX.Element {
  return <>{items.map((b, i) => <BlockView key={i} block={b} />)}</>;
}

function BlockView({ block }: { block: Block }): JSX.Element {
  switch (block.t) {
    case "p":
      return (
        <p>
          <Inlines items={block.inline} />
        </p>
      );
    case "h": {
      // Headings of an answer sit under the panel's own: h4 at most.
      const Tag = `h${Math.min(6, block.level + 3)}` as "h4" | "h5" | "h6";
      return (
        <Tag>
          <Inlines items={block.inline} />
        </Tag>
      );
    }
    case "code": {
      const lang = languageNamed(block.lang);
      const lines = highlight(lang, block.text);
      return (
        <pre class="md-code" data-language={lang ?? ""}>
          <code>
            {lines.map((tokens, i) => (
              <span key={i}>
                <Tokens tokens={tokens} />
                {i < lines.length - 1 ? "\n" : ""}
              </span>
            ))}
          </code>
        </pre>
      );
    }
    case "list": {
      const items = block.items.map((item, i) => (
        <li key={i}>
          <Blocks items={item} />
        </li>
      ));
      return block.ordered
        ? <ol start={block.start === 1 ? undefined : block.start}>{items}</ol>
        : <ul>{items}</ul>;
    }
    case "quote":
      return (
        <blockquote>
          <Blocks items={block.blocks} />
        </blockquote>
      );
    case "table":
      return (
        <div class="md-table">
          <table>
            <thead>
              <tr>
                {block.head.map((c, i) => (
                  <th key={i}>
                    <Inlines items={c} />
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {block.rows.map((r, i) => (
                <tr key={i}>
                  {r.map((c, j) => (
                    <td key={j}>
                      <Inlines items={c} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    case "hr":
      return <hr />;
  }
}

/** `text` read as Markdown, in a `.md` block. */
export function Markdown({ text, class: cls }: { text: string; class?: string }) {
  const blocks = useMemo(() => parseMarkdown(text), [text]);
  return (
    <div class={`md${cls ? ` ${cls}` : ""}`}>
      <Blocks items={blocks} />
    </div>
  );
}
