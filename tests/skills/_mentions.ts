/**
 * What a Markdown document names of the program: `pitroom CMD --flags` in its code, bare flags,
 * MCP tool names, config keys (JSON keys, and in skills the camelCase code spans), relative
 * links, and its frontmatter. Pure; drift_test.ts checks them against the program's own tables.
 */

/** One `pitroom CMD ...` found in a code span or block. */
export interface CommandMention {
  command: string;
  flags: string[];
  line: number;
}

/** Everything a document names. */
export interface Mentions {
  commands: CommandMention[];
  /** Flags in code spans that start with a flag (`--link node_modules`), not tied to a command. */
  bareFlags: { flag: string; line: number }[];
  tools: { name: string; line: number }[];
  /** Top-level keys of JSON that names at least one config key, and camelCase spans. */
  jsonKeys: { keys: string[]; line: number }[];
  camelSpans: { name: string; line: number }[];
  links: { target: string; line: number }[];
}

/** A piece of code: an inline span or one line of a fenced block. */
interface Code {
  text: string;
  line: number;
  block: boolean;
  lang: string;
}

function codeOf(markdown: string): { codes: Code[]; blocks: Code[] } {
  const codes: Code[] = [];
  const blocks: Code[] = [];
  let fence: { lang: string; start: number; lines: string[] } | null = null;
  markdown.split("\n").forEach((raw, i) => {
    const line = i + 1;
    const fenced = /^\s*```(\w*)/.exec(raw);
    if (fenced) {
      if (fence === null) fence = { lang: fenced[1] ?? "", start: line, lines: [] };
      else {
        blocks.push({
          text: fence.lines.join("\n"),
          line: fence.start,
          block: true,
          lang: fence.lang,
        });
        fence = null;
      }
      return;
    }
    if (fence !== null) {
      fence.lines.push(raw);
      codes.push({ text: raw, line, block: true, lang: fence.lang });
      return;
    }
    for (const m of raw.matchAll(/`([^`]+)`/g)) {
      codes.push({ text: m[1]!.replaceAll("\\|", "|"), line, block: false, lang: "" });
    }
  });
  return { codes, blocks };
}

/** Shell words with quoted strings folded into one placeholder word. */
function words(text: string): string[] {
  return text.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, " Q ").split(/\s+/).filter((w) => w !== "");
}

const STOP = new Set(["&&", "||", "|", ";", "#", ">", "<", "2>", "2>&1", "\\"]);

/** The flag names in a word (`[--json|--brief]` -> `--json`, `--brief`; `--a=b` -> `--a`). */
export function flagsInWord(word: string): string[] {
  return word.replace(/[\[\]()…]/g, "").split("|").flatMap((part) => {
    const m = /^(--?[a-zA-Z][a-zA-Z-]*)(?:=.*)?$/.exec(part);
    return m ? [m[1]!] : [];
  });
}

function commandsIn(code: Code): CommandMention[] {
  const out: CommandMention[] = [];
  const list = words(code.text);
  list.forEach((word, i) => {
    if (word.replace(/^[$(]+/, "") !== "pitroom") return;
    const command = list[i + 1];
    if (command === undefined || !/^[a-z][a-z-]*$/.test(command) || command === "pitroom") return;
    const flags: string[] = [];
    for (const w of list.slice(i + 2)) {
      if (STOP.has(w) || w.startsWith("#") || w.endsWith(";") || w === "pitroom") break;
      flags.push(...flagsInWord(w));
    }
    out.push({ command, flags, line: code.line });
  });
  return out;
}

/** The top-level keys of a JSON text (an object, or a fragment `"a": 1, "b": {...}`). */
export function topLevelKeys(text: string): string[] {
  const trimmed = text.trim();
  const top = trimmed.startsWith("{") ? 1 : 0;
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < trimmed.length && trimmed[j] !== '"') j += trimmed[j] === "\\" ? 2 : 1;
      const name = trimmed.slice(i + 1, j);
      if (depth === top && /^\s*:/.test(trimmed.slice(j + 1))) keys.push(name);
      i = j;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
  }
  return keys;
}

/** Everything a Markdown document names (see `Mentions`). */
export function mentionsOf(markdown: string): Mentions {
  const { codes, blocks } = codeOf(markdown);
  const lines = markdown.split("\n");
  const mentions: Mentions = {
    commands: codes.flatMap(commandsIn),
    bareFlags: [],
    tools: [],
    jsonKeys: [],
    camelSpans: [],
    links: [],
  };
  for (const code of codes) {
    if (!code.block && /^--?[a-zA-Z]/.test(code.text)) {
      for (const w of words(code.text)) {
        for (const flag of flagsInWord(w)) mentions.bareFlags.push({ flag, line: code.line });
      }
    }
    if (!code.block && /^[a-z]+[A-Z][A-Za-z]*$/.test(code.text)) {
      mentions.camelSpans.push({ name: code.text, line: code.line });
    }
    if (!code.block && /^\{?\s*"[A-Za-z]+"\s*:/.test(code.text)) {
      mentions.jsonKeys.push({ keys: topLevelKeys(code.text), line: code.line });
    }
  }
  for (const block of blocks) {
    if (block.lang === "json") {
      mentions.jsonKeys.push({ keys: topLevelKeys(block.text), line: block.line });
    }
  }
  lines.forEach((text, i) => {
    // A client's own prefix (`mcp__pitroom__`, `mcp_pitroom_`) comes off: the tool is after it.
    const tool = /(?<![A-Za-z0-9])(?:mcp__?pitroom__?)?(pitroom_[a-z]+(?:_[a-z]+)*)/g;
    for (const m of text.matchAll(tool)) {
      mentions.tools.push({ name: m[1]!, line: i + 1 });
    }
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      mentions.links.push({ target: m[1]!, line: i + 1 });
    }
  });
  return mentions;
}

/** A SKILL.md's frontmatter: its keys and values, or the problems that make it invalid. */
export function frontmatter(text: string): { fields: Record<string, string>; problems: string[] } {
  const problems: string[] = [];
  const fields: Record<string, string> = {};
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!m) return { fields, problems: ["no frontmatter between --- lines at the top"] };
  for (const line of m[1]!.split("\n")) {
    const kv = /^([a-z][a-z-]*):\s(.*)$/.exec(line);
    if (!kv) {
      problems.push(`frontmatter line is not "key: value": ${line}`);
      continue;
    }
    const [, key, value] = kv as unknown as [string, string, string];
    // A plain YAML scalar: no ": " or " #" inside, no leading indicator character.
    if (/: | #/.test(value) || /^[\[\]{}>|*&!%@`'",#?-]/.test(value)) {
      problems.push(`"${key}" is not a plain YAML scalar (quote it or reword it)`);
    }
    if (key in fields) problems.push(`"${key}" appears twice`);
    fields[key] = value;
  }
  return { fields, problems };
}

/** A GitHub heading anchor (`### Shell completions` -> `shell-completions`). */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}
