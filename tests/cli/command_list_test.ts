/**
 * The command list is one table that loads lazily: each name loads its own declaration, a word
 * that is not a command (even one spelled like an Object property) is an unknown command, and
 * start-up loads no declaration, no command code and no help (read from the module graph that
 * `deno info` reports: static imports are loaded at start, dynamic ones when reached).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { COMMAND_NAMES, loadCommand } from "../../src/cli/command_list.ts";
import { COMMANDS } from "../../src/cli/commands.ts";
import { main } from "../../src/cli/main.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = `file://${ROOT}src/cli/`;

Deno.test("the command list loads each command's declaration under its own name, in help's order", async () => {
  assert.deepEqual(COMMANDS.map((c) => c.name), [...COMMAND_NAMES]);
  for (const name of COMMAND_NAMES) assert.equal((await loadCommand(name))?.name, name);
  assert.equal(new Set(COMMAND_NAMES).size, COMMAND_NAMES.length);
});

Deno.test("a command word spelled like an Object property is an unknown command (exit 2)", async () => {
  await using dir = await tempDir();
  for (const name of ["toString", "__proto__", "constructor", "hasOwnProperty", "valueOf"]) {
    assert.equal(loadCommand(name), undefined, name);
    const sys = testSys({ stateDir: dir.path });
    assert.equal(await main([name], sys), 2, name);
    assert.match(sys.stderrText(), new RegExp(`^pitroom: Unknown command "${name}"\\n`));
  }
});

interface Info {
  modules: {
    specifier: string;
    dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
  }[];
}

/** The module graph of main.ts: each module's static and dynamic imports. */
async function graph(): Promise<Map<string, { static: string[]; dynamic: string[] }>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info: Info = JSON.parse(new TextDecoder().decode(out.stdout));
  const edges = new Map<string, { static: string[]; dynamic: string[] }>();
  for (const m of info.modules) {
    const deps = (m.dependencies ?? []).filter((d) => d.code !== undefined);
    edges.set(m.specifier, {
      static: deps.filter((d) => !d.isDynamic).map((d) => d.code!.specifier),
      dynamic: deps.filter((d) => d.isDynamic).map((d) => d.code!.specifier),
    });
  }
  return edges;
}

/** Every module `root` loads statically, itself included. */
function loads(edges: Awaited<ReturnType<typeof graph>>, root: string): Set<string> {
  const seen = new Set<string>();
  const todo = [root];
  while (todo.length > 0) {
    const next = todo.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    todo.push(...(edges.get(next)?.static ?? []));
  }
  return seen;
}

Deno.test("start-up loads no command declaration, no command code and no help; a declaration loads no command code", async () => {
  const edges = await graph();
  const cli = (specs: Iterable<string>) =>
    [...specs].filter((s) => s.startsWith(CLI)).map((s) => s.slice(CLI.length)).sort();
  // What `pitroom --version` loads of cli/: what every command needs before it is known.
  assert.deepEqual(cli(loads(edges, `file://${ROOT}main.ts`)), [
    "command_list.ts",
    "fields.ts",
    "main.ts",
    "safe.ts",
    "version.ts",
  ]);
  // A declaration is cheap: the kit, the parser and other declarations, never command code.
  const declarations = cli(edges.get(`${CLI}command_list.ts`)!.dynamic);
  assert.ok(declarations.length >= 20 && declarations.every((d) => d.endsWith("_command.ts")));
  for (const declaration of declarations) {
    const loaded = cli(loads(edges, `${CLI}${declaration}`));
    const code = loaded.filter((f) => !f.endsWith("_command.ts") && f !== "parse.ts");
    assert.deepEqual(code, ["command.ts"], `${declaration} loads command code`);
  }
});
