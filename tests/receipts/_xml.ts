/**
 * A strict little XML parser for the SVG tests: elements, quoted attributes, text and the five
 * predefined entities (plus numeric ones). Throws on anything not well-formed: an unclosed or
 * mismatched tag, an unquoted or repeated attribute, a bare `&` or `<`, or trailing content.
 */

/** An element of the parsed document. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text, entities decoded. */
  text: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(raw: string, at: number): string {
  if (raw.includes("<")) throw new Error(`bare "<" near ${at}`);
  return raw.replace(/&([^;]*);|&/g, (match, name: string | undefined) => {
    if (name === undefined) throw new Error(`bare "&" near ${at}`);
    if (Object.hasOwn(ENTITIES, name)) return ENTITIES[name]!;
    const num = /^#(x[0-9a-fA-F]+|\d+)$/.exec(name);
    if (num) return String.fromCodePoint(Number(num[1]!.replace(/^x/, "0x")));
    throw new Error(`unknown entity "${match}" near ${at}`);
  });
}

/** Parses a document and returns its root element. */
export function parseXml(source: string): XmlElement {
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  const skipSpace = () => {
    while (i < source.length && /\s/.test(source[i]!)) i++;
  };
  skipSpace();
  if (source.startsWith("<?xml", i)) i = source.indexOf("?>", i) + 2;
  while (i < source.length) {
    const lt = source.indexOf("<", i);
    const textEnd = lt < 0 ? source.length : lt;
    const text = source.slice(i, textEnd);
    if (stack.length > 0) stack.at(-1)!.text += decode(text, i);
    else if (text.trim() !== "") throw new Error(`text outside the root near ${i}`);
    if (lt < 0) break;
    i = lt;
    if (source.startsWith("</", i)) {
      const end = source.indexOf(">", i);
      const name = source.slice(i + 2, end).trim();
      const open = stack.pop();
      if (open === undefined || open.name !== name) {
        throw new Error(`closing </${name}> does not match <${open?.name}> near ${i}`);
      }
      i = end + 1;
      continue;
    }
    const tag = /^<([A-Za-z][\w:.-]*)/.exec(source.slice(i));
    if (tag === null) throw new Error(`bad tag near ${i}`);
    if (stack.length === 0 && root !== null) throw new Error(`second root element near ${i}`);
    const element: XmlElement = { name: tag[1]!, attrs: {}, children: [], text: "" };
    i += tag[0].length;
    for (;;) {
      skipSpace();
      if (source.startsWith("/>", i)) {
        i += 2;
        break;
      }
      if (source[i] === ">") {
        i++;
        stack.push(element);
        break;
      }
      const attr = /^([A-Za-z_:][\w:.-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(source.slice(i));
      if (attr === null) throw new Error(`bad attribute in <${element.name}> near ${i}`);
      if (Object.hasOwn(element.attrs, attr[1]!)) throw new Error(`repeated ${attr[1]} near ${i}`);
      element.attrs[attr[1]!] = decode(attr[3] ?? attr[4] ?? "", i);
      i += attr[0].length;
    }
    const parent = stack.at(stack.at(-1) === element ? -2 : -1);
    if (parent) parent.children.push(element);
    else root = element;
  }
  if (stack.length > 0) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (root === null) throw new Error("no root element");
  return root;
}

/** Every element of a tree, depth first. */
export function allElements(root: XmlElement): XmlElement[] {
  return [root, ...root.children.flatMap(allElements)];
}

/** The text of every `<text>` element, in document order. */
export function texts(root: XmlElement): string[] {
  return allElements(root).filter((e) => e.name === "text").map((e) => e.text);
}
