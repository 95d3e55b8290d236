/**
 * The user's documents cannot drift from the program: the CLI reference (docs/cli.md) is what
 * scripts/cli_reference.ts writes from the command declarations now, every visible command is in
 * exactly one of help's groups, the MCP page's tool table lists exactly the server's tools,
 * CONTRIBUTING.md's task table lists exactly the ./dev tasks, and the README stays a page a user
 * reads in five minutes that still names the project's set-up and test commands, and the README
 * and the install page state the worker CLI versions each backend declares it was tested with. (Every command,
 * flag, MCP tool, config key and link the README, CONTRIBUTING.md and docs/ name is checked in
 * tests/skills/drift_test.ts.)
 */
import assert from "node:assert/strict";
import { COMMANDS } from "../../src/cli/commands.ts";
import { COMMAND_GROUPS, overviewHelp } from "../../src/cli/help.ts";
import { MCP_TOOL_NAMES } from "../../src/server/mcp/tool_names.ts";
import { cliReference } from "../../scripts/cli_reference.ts";
import { INSTALL_HINTS } from "../../src/engine/setup/installed.ts";
import { BACKENDS } from "../../src/workers/registry.ts";
import { testedRangeText } from "../../src/workers/tested.ts";
import { WORKER_NAMES } from "../../src/workers/types.ts";

const read = (path: string) => Deno.readTextFile(new URL(`../../${path}`, import.meta.url));

/** The rows of the first table under `heading` in `text`, as their first cells. */
function firstCells(text: string, heading: string): string[] {
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `no "${heading}" section`);
  const cells: string[] = [];
  for (const line of text.slice(start).split("\n").slice(2)) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|") || /^\|\s*-/.test(line)) continue;
    cells.push(line.split(/(?<!\\)\|/)[1]!.trim());
  }
  return cells;
}

/** The code spans of a cell. */
function spans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

Deno.test("docs/cli.md is what `deno task docs:cli` writes from the command declarations now", async () => {
  assert.equal(
    await read("docs/cli.md"),
    cliReference(COMMANDS),
    "docs/cli.md is stale: run `deno task docs:cli`",
  );
});

Deno.test("every visible command is in exactly one help group, and the groups name no other", () => {
  const grouped = COMMAND_GROUPS.flatMap((g) => g.commands);
  const visible = COMMANDS.filter((c) => !c.hidden).map((c) => c.name);
  assert.deepEqual([...grouped].sort(), [...visible].sort());
  assert.equal(new Set(grouped).size, grouped.length);
  // help and the reference list the same groups in the same order.
  const help = overviewHelp(COMMANDS, "0.0.0");
  const reference = cliReference(COMMANDS);
  let at = 0;
  for (const g of COMMAND_GROUPS) {
    at = help.indexOf(`\n${g.title}:\n`, at);
    assert.ok(at >= 0, `help lacks the group ${g.title} in its place`);
    assert.match(reference, new RegExp(`^## ${g.title}$`, "m"));
    for (const name of g.commands) {
      assert.match(help.slice(at).split("\n\n")[0]!, new RegExp(`^  ${name} `, "m"));
    }
  }
});

Deno.test("the MCP page's tool table lists exactly the server's tools", async () => {
  const text = await read("docs/mcp.md");
  const table = text.slice(text.indexOf("| tool "));
  const listed = [...table.split("\n\n")[0]!.matchAll(/^\| `(pitroom_\w+)`/gm)].map((m) => m[1]);
  assert.deepEqual([...listed].sort(), [...MCP_TOOL_NAMES].sort());
});

Deno.test("CONTRIBUTING.md's development table lists every ./dev task, and only those", async () => {
  const deno = JSON.parse(await read("deno.json"));
  const tasks = Object.keys(deno.tasks as Record<string, string>);
  const listed = firstCells(await read("CONTRIBUTING.md"), "## Development tasks").flatMap((cell) =>
    spans(cell).map((s) => s.match(/^\.\/dev (\S+)/)?.[1]).filter((t) => t !== undefined)
  );
  assert.deepEqual([...new Set(listed)].sort(), [...tasks].sort());
});

Deno.test("the README is at most 300 lines and names the set-up and test commands", async () => {
  const readme = await read("README.md");
  assert.ok(readme.split("\n").length <= 301, `README has ${readme.split("\n").length} lines`);
  // .ci/run runs `./dev test`, the README's and CONTRIBUTING.md's test command.
  for (const doc of [readme, await read("CONTRIBUTING.md")]) {
    assert.match(doc, /^\.\/dev demo\b/m);
    assert.match(doc, /^\.\/dev test\b/m);
  }
  assert.match(await read(".ci/run"), /test_cmd="\.\/dev test"/);
});

Deno.test("the README and the install page state each worker CLI's tested versions as its backend declares them", async () => {
  for (const path of ["README.md", "docs/install.md"]) {
    const text = (await read(path)).replace(/\s+/g, " ");
    for (const worker of WORKER_NAMES) {
      const pkg = INSTALL_HINTS[worker].replace(/^npm i -g /, "");
      const stated = `\`${pkg}\` ${testedRangeText(BACKENDS[worker].tested)}`;
      assert.ok(text.includes(stated), `${path} does not say "${stated}"`);
    }
  }
});
