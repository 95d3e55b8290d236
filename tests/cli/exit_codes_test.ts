/**
 * The exit codes are one table: `Exit` in src/sys/errors.ts (what the program ends with) and
 * every place that lists them (the table in docs/troubleshooting.md, `pitroom --help`, the using-pitroom skill)
 * name the same codes, no more and no fewer.
 */
import assert from "node:assert/strict";
import { COMMANDS } from "../../src/cli/commands.ts";
import { overviewHelp } from "../../src/cli/help.ts";
import { Exit } from "../../src/sys/errors.ts";

const CODES = Object.values(Exit).sort((a, b) => a - b);
const read = (path: string) => Deno.readTextFile(new URL(`../../${path}`, import.meta.url));

Deno.test("the docs, --help and the skill list exactly the exit codes the program has", async () => {
  const readme = await read("docs/troubleshooting.md");
  const section = readme.slice(readme.indexOf("## Exit codes"));
  const table = section.slice(0, section.indexOf("\n\n", section.indexOf("| ----")));
  const inReadme = [...table.matchAll(/^\| (\d+)\s+\|/gm)].map((m) => Number(m[1]));
  assert.deepEqual(inReadme, CODES);

  const help = overviewHelp(COMMANDS, "0.0.0");
  const block = help.slice(
    help.indexOf("Exit codes:"),
    help.indexOf("\n\n", help.indexOf("Exit codes:")),
  );
  assert.deepEqual([...block.matchAll(/\b(\d+) [a-z]/g)].map((m) => Number(m[1])), CODES);

  const skill = await read("skills/using-pitroom/SKILL.md");
  const line = skill.slice(skill.indexOf("## Exit codes"), skill.indexOf("`pitroom doctor`"));
  assert.deepEqual([...line.matchAll(/\b(\d+) [a-z]/g)].map((m) => Number(m[1])), CODES);
});
