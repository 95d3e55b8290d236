/**
 * Careful edits of a user's JSON config: one member of one object is set or removed by splicing
 * the text, so every other byte of the file (other members, their formatting, numbers that
 * JSON.parse would round) stays exactly as it was. The text must be valid JSON (check with
 * `JSON.parse` first); all functions here are pure.
 */

/** Where one member of an object sits in the text. */
interface Member {
  key: string;
  /** Offset of the key's opening quote. */
  start: number;
  /** Offsets of the value. */
  valueStart: number;
  valueEnd: number;
}

/** Where an object sits in the text, and its members in order. */
interface ObjectSpan {
  open: number;
  close: number;
  members: Member[];
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}

function stringEnd(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i + 1;
}

/** The end offset of the value starting at `at` (valid JSON assumed). */
function valueEnd(text: string, at: number): number {
  const c = text[at];
  if (c === '"') return stringEnd(text, at);
  if (c === "{" || c === "[") {
    let depth = 0;
    let i = at;
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === '"') {
        i = stringEnd(text, i);
        continue;
      }
      if (ch === "{" || ch === "[") depth++;
      if (ch === "}" || ch === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  let i = at;
  while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
  return i;
}

function objectAt(text: string, open: number): ObjectSpan {
  const members: Member[] = [];
  let i = skipSpace(text, open + 1);
  while (text[i] === '"') {
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end = valueEnd(text, valueStart);
    members.push({ key, start: i, valueStart, valueEnd: end });
    i = skipSpace(text, end);
    if (text[i] === ",") i = skipSpace(text, i + 1);
  }
  return { open, close: i, members };
}

/** The indentation unit of the text (the first member's), else two spaces. */
function indentUnit(text: string, top: ObjectSpan): string {
  const first = top.members[0];
  if (first === undefined) return "  ";
  const line = text.slice(text.lastIndexOf("\n", first.start) + 1, first.start);
  return /^[ \t]+$/.test(line) ? line : text.lastIndexOf("\n", first.start) < 0 ? "" : "  ";
}

function lineIndent(text: string, at: number): string {
  const line = text.slice(text.lastIndexOf("\n", at - 1) + 1, at);
  return /^[ \t]*/.exec(line)![0];
}

/** `value` as JSON indented for a member at `indent` (one line when the file has no newlines). */
function render(value: unknown, unit: string, indent: string): string {
  if (unit === "") return JSON.stringify(value);
  return JSON.stringify(value, null, unit).replaceAll("\n", `\n${indent}`);
}

function insertMember(
  text: string,
  span: ObjectSpan,
  key: string,
  value: unknown,
  unit: string,
): string {
  const last = span.members.at(-1);
  const outer = lineIndent(text, span.open);
  const oneLine = unit === "";
  const indent = last === undefined ? outer + unit : lineIndent(text, last.start);
  const member = `${JSON.stringify(key)}: ${render(value, unit, indent)}`;
  if (last === undefined) {
    const inside = oneLine ? member : `\n${indent}${member}\n${outer}`;
    return text.slice(0, span.open + 1) + inside + text.slice(span.close);
  }
  const sep = oneLine ? ", " : `,\n${indent}`;
  return text.slice(0, last.valueEnd) + sep + member + text.slice(last.valueEnd);
}

function dropMember(text: string, span: ObjectSpan, index: number): string {
  const member = span.members[index]!;
  const next = span.members[index + 1];
  const prev = span.members[index - 1];
  if (prev !== undefined) return text.slice(0, prev.valueEnd) + text.slice(member.valueEnd);
  if (next !== undefined) return text.slice(0, member.start) + text.slice(next.start);
  // The only member: leave an empty object.
  return text.slice(0, span.open + 1) + text.slice(span.close);
}

function topObject(text: string): ObjectSpan {
  const open = skipSpace(text, 0);
  if (text[open] !== "{") throw new Error("not a JSON object");
  return objectAt(text, open);
}

/**
 * Sets `container.key` to `value` (the container, an object member of the top-level object, is
 * made when missing). Valid JSON text in, valid JSON text out; an empty text is `{}`.
 */
export function setMember(text: string, container: string, key: string, value: unknown): string {
  const source = text.trim() === "" ? "{}\n" : text;
  const top = topObject(source);
  const unit = indentUnit(source, top);
  const holder = top.members.findLast((m) => m.key === container);
  if (holder === undefined || source[holder.valueStart] !== "{") {
    if (holder !== undefined) {
      return source.slice(0, holder.valueStart) +
        render({ [key]: value }, unit, lineIndent(source, holder.start)) +
        source.slice(holder.valueEnd);
    }
    return insertMember(source, top, container, { [key]: value }, unit);
  }
  const inner = objectAt(source, holder.valueStart);
  const existing = inner.members.findLast((m) => m.key === key);
  if (existing === undefined) return insertMember(source, inner, key, value, unit);
  return source.slice(0, existing.valueStart) +
    render(value, unit, lineIndent(source, existing.start)) + source.slice(existing.valueEnd);
}

/**
 * Removes every `container.key` member; with `dropEmpty`, also the container when nothing is
 * left in it. Returns the text unchanged when there is no such member.
 */
export function unsetMember(
  text: string,
  container: string,
  key: string,
  options: { dropEmpty?: boolean } = {},
): string {
  let source = text;
  for (;;) {
    const top = topObject(source);
    const holderIndex = top.members.findLastIndex((m) => m.key === container);
    const holder = top.members[holderIndex];
    if (holder === undefined || source[holder.valueStart] !== "{") return source;
    const inner = objectAt(source, holder.valueStart);
    const index = inner.members.findLastIndex((m) => m.key === key);
    if (index < 0) {
      if (options.dropEmpty && inner.members.length === 0) {
        return dropMember(source, top, holderIndex);
      }
      return source;
    }
    source = dropMember(source, inner, index);
  }
}
