/**
 * The front door stays the only door: a file of `src/cli/` (and, once it exists, `src/server/`)
 * imports nothing under `src/` but `src/engine/mod.ts`, `src/sys/` and its own folder. The
 * imports are read from the source text (static and dynamic `import`, `export ... from`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
const DOORS = ["cli", "server"];
/** What a door folder may import under src/, besides its own folder. */
const ALLOWED = [/^engine\/mod\.ts$/, /^sys\//];
/** The CLI also starts the servers (`pitroom mcp`, `pitroom dash`): it may import server/. */
const ALSO: Record<string, RegExp[]> = { cli: [/^server\//] };

const SPECIFIER =
  /(?:import|export)\s[^"']*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

async function* files(dir: string): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory) yield* files(path);
    else if (e.name.endsWith(".ts")) yield path;
  }
}

/** The imports of `text` that leave `door` for another part of src/ the rules do not allow. */
export function forbidden(file: string, text: string, door: string): string[] {
  const bad: string[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2]!;
    if (!spec.startsWith(".")) continue;
    const target = join(file, "..", spec);
    if (!target.startsWith(SRC)) continue;
    const rel = target.slice(SRC.length);
    if (rel.startsWith(`${door}/`)) continue;
    if (![...ALLOWED, ...(ALSO[door] ?? [])].some((re) => re.test(rel))) {
      bad.push(`${file.slice(SRC.length)} -> ${rel}`);
    }
  }
  return bad;
}

Deno.test("cli/ and server/ import nothing under src/ but the engine's front door and sys/", async () => {
  const bad: string[] = [];
  let seen = 0;
  for (const door of DOORS) {
    for await (const file of files(join(SRC, door))) {
      seen++;
      bad.push(...forbidden(file, await Deno.readTextFile(file), door));
    }
  }
  assert.ok(seen > 0, "no file of cli/ was read");
  assert.deepEqual(bad, [], `imports past the front door:\n${bad.join("\n")}`);
});

Deno.test("the import rule catches a reach past the door, static or dynamic", () => {
  const file = join(SRC, "cli", "x.ts");
  const text = [
    'import { a } from "../engine/mod.ts";',
    'import type { B } from "../store/record.ts";',
    'import { c } from "./y.ts";',
    'import { d } from "../sys/errors.ts";',
    'const e = await import("../history/ready.ts");',
    'export { f } from "../engine/walk.ts";',
  ].join("\n");
  assert.deepEqual(forbidden(file, text, "cli").sort(), [
    "cli/x.ts -> engine/walk.ts",
    "cli/x.ts -> history/ready.ts",
    "cli/x.ts -> store/record.ts",
  ]);
});
