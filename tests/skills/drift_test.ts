/**
 * The skills, the README, CONTRIBUTING.md and docs/ cannot drift from the program: every `pitroom` command and flag
 * they name is in the command table (src/cli/commands.ts), every MCP tool in the tool list
 * (src/server/mcp/tool_names.ts), every config key in the config schema (src/store/config.ts),
 * every relative link resolves, every SKILL.md has valid frontmatter and stays short; and the
 * documents that introduce the workers name every one of them.
 * (The README's command table itself is checked against the command table in
 * tests/cli/readme_test.ts.)
 */
import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { COMMANDS } from "../../src/cli/commands.ts";
import { MCP_TOOL_NAMES } from "../../src/server/mcp/tool_names.ts";
import { CONFIG_KEYS } from "../../src/store/config.ts";
import { WORKER_NAMES, type WorkerName } from "../../src/workers/names.ts";
import { anchorOf, frontmatter, mentionsOf } from "./_mentions.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * PENDING: names the skills and the README use that other branches are adding right now
 * (issue 14: `mcp`; 15: `dash`; 16: `audit`, `eval`, `--fresh`, `--audit`, the cache and audit
 * keys; 17: `review`, `plan`, `--plan`, `--step`, the four templates; 18 item 4: `install --mcp`
 * and friends; 18 item 7: `notify`). The lead empties this list when those branches are merged:
 * from then on the test must pass without it. A pending name the program already has is an
 * error too, so the list only ever shrinks.
 */
const PENDING = {
  /** Whole commands (their flags are checked once they exist). */
  commands: [] as string[],
  /** Flags of commands that exist. */
  flags: {} as Record<string, string[]>,
  configKeys: [] as string[],
  /** Files that other helpers write. */
  files: [] as string[],
};

/** The skills, by folder name: the fourteen the issue asks for. */
const SKILLS = [
  "using-pitroom",
  "pitroom-research",
  "pitroom-implement",
  "pitroom-crew",
  "pitroom-driven-development",
  "pitroom-brainstorming",
  "pitroom-writing-plans",
  "pitroom-tdd",
  "pitroom-debugging",
  "pitroom-verification",
  "pitroom-review",
  "pitroom-receiving-review",
  "pitroom-finishing",
  "pitroom-worktrees",
];

/** using-pitroom is loaded into every session by the plugins' hooks. */
const USING_PITROOM_MAX = 6_000;
/** Every other skill. */
const SKILL_MAX = 8_000;

/** A document checked; `skill` for the files under skills/ and plugins/. */
type Doc = { path: string; text: string; skill: boolean };

/**
 * The documents checked: the README, CONTRIBUTING.md, every Markdown file under docs/, and every
 * one under skills/ and plugins/.
 */
async function documents(): Promise<Doc[]> {
  const out: Doc[] = [];
  for (const path of ["README.md", "CONTRIBUTING.md"]) {
    out.push({ path, text: await Deno.readTextFile(join(ROOT, path)), skill: false });
  }
  for await (const path of walk(join(ROOT, "docs"))) {
    // docs/cli.md is written from the command declarations (tests/cli/readme_test.ts).
    if (!path.endsWith(".md") || relative(ROOT, path) === join("docs", "cli.md")) continue;
    out.push({ path: relative(ROOT, path), text: await Deno.readTextFile(path), skill: false });
  }
  for (const top of ["skills", "plugins"]) {
    for await (const path of walk(join(ROOT, top))) {
      if (!path.endsWith(".md")) continue;
      out.push({ path: relative(ROOT, path), text: await Deno.readTextFile(path), skill: true });
    }
  }
  return out;
}

async function* walk(dir: string): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isDirectory) yield* walk(join(dir, e.name));
    else yield join(dir, e.name);
  }
}

/** Every flag spelling of a command, `--help`/`-h` included. */
function flagsOf(name: string): Set<string> | null {
  const def = COMMANDS.find((c) => c.name === name);
  if (def === undefined) return null;
  return new Set([
    "--help",
    "-h",
    ...def.flags.flatMap((f) => [`--${f.name}`, ...(f.short ? [`-${f.short}`] : [])]),
  ]);
}

const ALL_FLAGS = new Set([
  ...COMMANDS.flatMap((c) => [...flagsOf(c.name)!]),
  ...Object.values(PENDING.flags).flat(),
]);
const CONFIG = new Set<string>([...CONFIG_KEYS, ...PENDING.configKeys]);

/** `pitroom CMD --flag` that the command table does not have. */
function commandProblems(docs: Doc[]): string[] {
  const problems: string[] = [];
  for (const doc of docs) {
    for (const m of mentionsOf(doc.text).commands) {
      const at = `${doc.path}:${m.line}`;
      if (PENDING.commands.includes(m.command)) continue;
      const flags = flagsOf(m.command);
      if (flags === null) {
        problems.push(`${at}: \`pitroom ${m.command}\` is no command`);
        continue;
      }
      for (const flag of m.flags) {
        if (!flags.has(flag) && !(PENDING.flags[m.command] ?? []).includes(flag)) {
          problems.push(`${at}: \`pitroom ${m.command}\` has no flag ${flag}`);
        }
      }
    }
  }
  return problems;
}

/** Flags in a skill's code span that no command has. */
function bareFlagProblems(docs: Doc[]): string[] {
  const problems: string[] = [];
  for (const doc of docs.filter((d) => d.skill)) {
    for (const { flag, line } of mentionsOf(doc.text).bareFlags) {
      if (!ALL_FLAGS.has(flag)) problems.push(`${doc.path}:${line}: no command has ${flag}`);
    }
  }
  return problems;
}

/** `pitroom_*` names that are not MCP tools. */
function toolProblems(docs: Doc[]): string[] {
  const tools = new Set<string>(MCP_TOOL_NAMES);
  const problems: string[] = [];
  for (const doc of docs) {
    for (const { name, line } of mentionsOf(doc.text).tools) {
      if (!tools.has(name)) problems.push(`${doc.path}:${line}: no MCP tool ${name}`);
    }
  }
  return problems;
}

/** Config keys that the config schema does not have. */
function configProblems(docs: Doc[]): string[] {
  const problems: string[] = [];
  for (const doc of docs) {
    const m = mentionsOf(doc.text);
    // A JSON object is a Pitroom config when it names one config key: then all its keys must be.
    for (const { keys, line } of m.jsonKeys) {
      if (!keys.some((k) => CONFIG.has(k))) continue;
      for (const key of keys.filter((k) => !CONFIG.has(k))) {
        problems.push(`${doc.path}:${line}: no config key "${key}"`);
      }
    }
    // In a skill, a camelCase code span is a config key.
    if (!doc.skill) continue;
    for (const { name, line } of m.camelSpans) {
      if (!CONFIG.has(name)) problems.push(`${doc.path}:${line}: no config key \`${name}\``);
    }
  }
  return problems;
}

/** A linked file's text ("" for a folder), or null when nothing is there. */
async function readLinked(path: string): Promise<string | null> {
  try {
    return (await Deno.stat(path)).isDirectory ? "" : await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Relative links (and same-file or Markdown anchors) that lead nowhere. */
async function linkProblems(docs: Doc[]): Promise<string[]> {
  const problems: string[] = [];
  for (const doc of docs) {
    for (const { target, line } of mentionsOf(doc.text).links) {
      if (/^[a-z]+:/.test(target)) continue;
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const file = path === "" ? doc.path : relative(ROOT, join(ROOT, dirname(doc.path), path));
      if (PENDING.files.includes(file)) continue;
      const text = path === "" ? doc.text : await readLinked(join(ROOT, file));
      if (text === null) {
        problems.push(`${doc.path}:${line}: ${target} does not exist`);
        continue;
      }
      if (anchor !== undefined && file.endsWith(".md")) {
        const anchors = new Set(
          [...text.matchAll(/^#+\s+(.*)$/gm)].map((h) => anchorOf(h[1]!)),
        );
        if (!anchors.has(anchor)) problems.push(`${doc.path}:${line}: ${target}: no such heading`);
      }
    }
  }
  return problems;
}

Deno.test("every `pitroom` command and flag the skills and the README name is in the command table", async () => {
  assert.deepEqual(commandProblems(await documents()), []);
});

Deno.test("every flag a skill names on its own is a flag of some command", async () => {
  assert.deepEqual(bareFlagProblems(await documents()), []);
});

Deno.test("every MCP tool the skills and the README name is in the server's tool list", async () => {
  assert.deepEqual(toolProblems(await documents()), []);
});

Deno.test("every config key the skills and the README name is in the config schema", async () => {
  assert.deepEqual(configProblems(await documents()), []);
});

Deno.test("every relative link of the skills, the plugins and the README resolves", async () => {
  assert.deepEqual(await linkProblems(await documents()), []);
});

Deno.test("the checks catch a planted mistake of each kind", async () => {
  const planted: Doc = {
    path: "skills/using-pitroom/PLANTED.md",
    skill: true,
    text: [
      'Run `pitroom runn "task"` and `pitroom wait --timout 540`.',
      "```sh",
      "pitroom apply last --allow-deletes && pitroom show --patch",
      "```",
      "Pass `--verbosity` to a run, call `pitroom_launch`, set `maxParalel` or",
      '`"tiers": {}, "tier": "x"`. See [a skill](../pitroom-nope/SKILL.md) and',
      "[the README](../../README.md#no-such-heading).",
    ].join("\n"),
  };
  assert.deepEqual(commandProblems([planted]), [
    `${planted.path}:1: \`pitroom runn\` is no command`,
    `${planted.path}:1: \`pitroom wait\` has no flag --timout`,
    `${planted.path}:3: \`pitroom apply\` has no flag --allow-deletes`,
  ]);
  assert.deepEqual(bareFlagProblems([planted]), [`${planted.path}:5: no command has --verbosity`]);
  assert.deepEqual(toolProblems([planted]), [`${planted.path}:5: no MCP tool pitroom_launch`]);
  assert.deepEqual(configProblems([planted]), [
    `${planted.path}:6: no config key "tier"`,
    `${planted.path}:5: no config key \`maxParalel\``,
  ]);
  assert.deepEqual(await linkProblems([planted]), [
    `${planted.path}:6: ../pitroom-nope/SKILL.md does not exist`,
    `${planted.path}:7: ../../README.md#no-such-heading: no such heading`,
  ]);
});

Deno.test("there are the fourteen skills, each with valid frontmatter that says when to use it", async () => {
  const folders = [];
  for await (const e of Deno.readDir(join(ROOT, "skills"))) if (e.isDirectory) folders.push(e.name);
  assert.deepEqual(folders.sort(), [...SKILLS].sort());
  const problems: string[] = [];
  for (const name of SKILLS) {
    const text = await Deno.readTextFile(join(ROOT, "skills", name, "SKILL.md"));
    const { fields, problems: found } = frontmatter(text);
    problems.push(...found.map((p) => `${name}: ${p}`));
    if (fields.name !== name) problems.push(`${name}: name is "${fields.name}", not the folder's`);
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) || name.length > 64) {
      problems.push(`${name}: not a valid skill name`);
    }
    const description = fields.description ?? "";
    if (!/^Use (when|at|before|after)\b/.test(description)) {
      problems.push(`${name}: the description does not start by saying when to use it`);
    }
    if (description.length > 1024 || /[<>]/.test(description)) {
      problems.push(`${name}: the description is over 1,024 characters or holds < or >`);
    }
    const extra = Object.keys(fields).filter((k) => k !== "name" && k !== "description");
    if (extra.length > 0) problems.push(`${name}: unexpected frontmatter keys ${extra.join(", ")}`);
    const max = name === "using-pitroom" ? USING_PITROOM_MAX : SKILL_MAX;
    if (text.length >= max) {
      problems.push(`${name}: ${text.length} characters, the limit is ${max}`);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("frontmatter() refuses what is not plain `key: value` YAML", () => {
  assert.deepEqual(frontmatter("---\nname: a\ndescription: Use when: colons\n---\nx").problems, [
    '"description" is not a plain YAML scalar (quote it or reword it)',
  ]);
  assert.deepEqual(frontmatter("# no frontmatter\n").problems, [
    "no frontmatter between --- lines at the top",
  ]);
  assert.deepEqual(frontmatter("---\nname: a\nname: b\n---\n").problems, ['"name" appears twice']);
});

Deno.test("the pending list names only what the program does not have yet", () => {
  const problems: string[] = [];
  for (const c of PENDING.commands) if (flagsOf(c) !== null) problems.push(`command ${c}`);
  for (const [c, flags] of Object.entries(PENDING.flags)) {
    for (const f of flags) if (flagsOf(c)?.has(f)) problems.push(`${c} ${f}`);
  }
  for (const k of PENDING.configKeys) {
    if ((CONFIG_KEYS as string[]).includes(k)) problems.push(`config key ${k}`);
  }
  for (const f of PENDING.files) {
    try {
      Deno.statSync(join(ROOT, f));
      problems.push(`file ${f}`);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  assert.deepEqual(problems, [], "these have landed: take them out of PENDING");
});

/** Each worker as the documents introduce it: the CLI's name and its npm package. */
const WORKER_DOCS: Record<WorkerName, { name: string; pkg: string }> = {
  opencode: { name: "OpenCode", pkg: "opencode-ai" },
  codex: { name: "Codex", pkg: "@openai/codex" },
  claude: { name: "Claude Code", pkg: "@anthropic-ai/claude-code" },
  gemini: { name: "Gemini CLI", pkg: "@google/gemini-cli" },
  qwen: { name: "Qwen Code", pkg: "@qwen-code/qwen-code" },
  kilo: { name: "Kilo", pkg: "@kilocode/cli" },
  copilot: { name: "Copilot", pkg: "@github/copilot" },
  crush: { name: "Crush", pkg: "@charmland/crush" },
};

/**
 * The documents that list the workers (the README's opening and requirements, the install page,
 * the using-pitroom skill) and what each must name of every worker.
 */
const WORKER_LISTS: { path: string; name: boolean; pkg: boolean }[] = [
  { path: "README.md", name: true, pkg: true },
  { path: "docs/install.md", name: false, pkg: true },
  { path: "skills/using-pitroom/SKILL.md", name: true, pkg: false },
];

/** The workers a document that lists them leaves out. */
function workerProblems(
  doc: { path: string; text: string },
  want: { name: boolean; pkg: boolean },
): string[] {
  const flat = doc.text.replace(/\s+/g, " ");
  return WORKER_NAMES.flatMap((w) => {
    const { name, pkg: npm } = WORKER_DOCS[w];
    return [
      ...(!want.name || flat.includes(name) ? [] : [`${doc.path}: does not name ${name}`]),
      ...(!want.pkg || flat.includes(npm) ? [] : [`${doc.path}: does not name ${npm}`]),
    ];
  });
}

Deno.test("the README, the install page and the using-pitroom skill name every worker", async () => {
  const problems: string[] = [];
  for (const { path, ...want } of WORKER_LISTS) {
    problems.push(
      ...workerProblems({ path, text: await Deno.readTextFile(join(ROOT, path)) }, want),
    );
  }
  assert.deepEqual(problems, []);
  const planted = { path: "PLANTED.md", text: "OpenCode (opencode-ai), Codex, Claude Code" };
  const found = workerProblems(planted, { name: true, pkg: true });
  assert.ok(found.includes("PLANTED.md: does not name Qwen Code"));
  assert.ok(found.includes("PLANTED.md: does not name @openai/codex"));
});
