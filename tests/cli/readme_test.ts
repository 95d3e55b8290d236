/**
 * The README's command table and the program's command table cannot drift: every visible
 * command has a row, every flag it declares is named in its rows, and every flag a row names
 * exists on that command.
 */
import assert from "node:assert/strict";
import { COMMANDS } from "../../src/cli/commands.ts";
import type { CommandDef } from "../../src/cli/command.ts";

const README = await Deno.readTextFile(new URL("../../README.md", import.meta.url));

/** The rows of the table under `heading`, as [first cell, second cell]. */
function tableRows(heading: string): [string, string][] {
  const start = README.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `README has no "${heading}" section`);
  const rows: [string, string][] = [];
  for (const line of README.slice(start).split("\n").slice(2)) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|") || /^\|\s*-/.test(line)) continue;
    // Cells are split on pipes that are not escaped (`\|` is a pipe inside a cell).
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim().replaceAll("\\|", "|"));
    rows.push([cells[0] ?? "", cells[1] ?? ""]);
  }
  return rows;
}

/** The code spans of a cell: each names one command and its flags (`run -w ...`). */
function spans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

const FLAG = /(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])(?![\w-])/g;

function flagsIn(text: string): string[] {
  return [...text.matchAll(FLAG)].map((m) => m[1]!);
}

function declared(def: CommandDef): Map<string, string> {
  const names = new Map<string, string>([["--help", "help"], ["-h", "help"]]);
  for (const f of def.flags) {
    names.set(`--${f.name}`, f.name);
    if (f.short) names.set(`-${f.short}`, f.name);
  }
  return names;
}

const rows = tableRows("### Commands");
const visible = COMMANDS.filter((c) => !c.hidden);

Deno.test("every visible command has a row in the README's command table, and every row a command", () => {
  const named = new Set(rows.flatMap(([cell]) => spans(cell).map((s) => s.split(" ")[0]!)));
  for (const def of visible) assert.ok(named.has(def.name), `README lacks \`${def.name}\``);
  for (const name of named) {
    if (name.startsWith("-")) continue; // `--version`
    assert.ok(visible.some((c) => c.name === name), `README lists \`${name}\`, no such command`);
  }
});

Deno.test("the README's command table names every flag of each command, and no other", () => {
  const problems: string[] = [];
  for (const def of visible) {
    const flags = declared(def);
    const mine = rows.filter(([cell]) => spans(cell).some((s) => s.split(" ")[0] === def.name));
    const seen = new Set<string>();
    for (const [cell, what] of mine) {
      for (const span of spans(cell).filter((s) => s.split(" ")[0] === def.name)) {
        // `[run flags]` on crew's row: the flags crew shares with run.
        if (span.includes("[run flags]")) {
          const run = declared(COMMANDS.find((c) => c.name === "run")!);
          for (const name of run.values()) if (flags.has(`--${name}`)) seen.add(name);
        }
        for (const flag of flagsIn(span)) {
          const name = flags.get(flag);
          if (name === undefined) problems.push(`\`${def.name}\` has no flag ${flag}`);
          else seen.add(name);
        }
      }
      // The description may name a flag too (`--task-file F`), when one command has the row.
      if (spans(cell).length === 1) {
        for (const flag of flagsIn(what)) {
          const name = flags.get(flag);
          if (name !== undefined) seen.add(name);
        }
      }
    }
    for (const f of def.flags) {
      if (!seen.has(f.name)) problems.push(`README's row of \`${def.name}\` misses --${f.name}`);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("the README's development table lists every ./dev task, and only those", async () => {
  const deno = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const tasks = Object.keys(deno.tasks as Record<string, string>);
  const listed = tableRows("## Development").flatMap(([cell]) =>
    spans(cell).map((s) => s.match(/^\.\/dev (\S+)/)?.[1]).filter((t) => t !== undefined)
  );
  assert.deepEqual([...new Set(listed)].sort(), [...tasks].sort());
});
