/**
 * The house's plan as a table of parts and nevers, checked against every import of src/ (static
 * and dynamic `import`, `export ... from`, read from the source text):
 *
 * - the faces (`cli/`, `server/`) import the engine's front door (`engine/mod.ts`), its
 *   presentation helpers (`engine/present.ts`) and `sys/` only (the CLI also starts the servers;
 *   the dashboard's contract names the run's shapes from the modules with no effects that define
 *   them);
 * - the lower rooms never import the engine or a face, and `confine/` (everything that limits a
 *   worker) is reached only from the engine rooms named here, and by the worker backends for
 *   the floor's data;
 * - inside the engine the rooms stand in a one-way order (`ENGINE_ORDER`): a room imports its own
 *   files and the rooms below it, never one beside or above it; the door's files at the top
 *   (`api*.ts`, `features.ts`, `mod.ts`) may import every room and no room imports them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** The rooms below the engine: what each may import besides itself. */
const LOWER: Record<string, RegExp[]> = {
  sys: [],
  events: [/^sys\//],
  store: [/^sys\//, /^events\//, /^workers\/(types|names)\.ts$/],
  vcs: [/^sys\//, /^store\//, /^events\//],
  receipts: [/^sys\//, /^store\//],
  workers: [/^sys\//, /^store\//, /^events\//, /^vcs\//, /^confine\/floor\.ts$/],
  confine: [
    /^sys\//,
    /^store\//,
    /^events\//,
    /^vcs\//,
    /^workers\/(types|modes|_detect|logins)\.ts$/,
  ],
};

/**
 * The dashboard's contract, which the page imports type-only, names the run's shapes where they
 * are defined: modules with no effects (the page's type check would fail on one that had any).
 */
const SHAPES: Record<string, RegExp[]> = {
  "server/dash/api_types.ts": [
    /^store\/record\.ts$/,
    /^store\/history\/row\.ts$/,
    /^events\/mod\.ts$/,
    /^workers\/names\.ts$/,
  ],
};

/** The faces: the front door, its presentation helpers and sys only (the CLI also starts the servers). */
const FACES: Record<string, RegExp[]> = {
  cli: [/^engine\/(mod|present)\.ts$/, /^sys\//, /^server\//],
  server: [/^engine\/(mod|present)\.ts$/, /^sys\//],
};

/**
 * The engine's rooms, lowest first; rooms on one line stand side by side and import none of
 * each other.
 */
const ENGINE_ORDER: string[][] = [
  ["core"],
  ["tree"],
  ["request"],
  ["run"],
  ["host", "remote"],
  ["follow"],
  ["runs"],
  ["setup"],
  ["answer", "eval", "history", "plan"],
  ["audit", "review"],
];

/** The engine rooms that may reach `confine/` (the door's files may too). */
const CONFINE_FROM = ["core", "tree", "run", "remote", "setup", "review"];

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
    else if (/\.tsx?$/.test(e.name)) yield path;
  }
}

/** The top folder of a path under src/ (`engine`, `cli`, ...). */
function partOf(rel: string): string {
  return rel.split("/")[0]!;
}

/** The engine room of a path under src/engine/, or "door" for the files at its top. */
function roomOf(rel: string): string {
  const parts = rel.split("/");
  return parts.length > 2 ? parts[1]! : "door";
}

function rankOf(room: string): number {
  const rank = ENGINE_ORDER.findIndex((rooms) => rooms.includes(room));
  if (rank < 0) throw new Error(`engine/${room}/ is not in ENGINE_ORDER`);
  return rank;
}

/** Why `from` may not import `to` (both relative to src/), or null when it may. */
export function broken(from: string, to: string): string | null {
  const a = partOf(from);
  const b = partOf(to);
  if (a === b && a !== "engine") return null;
  if (SHAPES[from]?.some((re) => re.test(to))) return null;
  if (a in FACES) {
    return FACES[a]!.some((re) => re.test(to))
      ? null
      : `${a}/ imports the front door, engine/present.ts and sys/ only`;
  }
  if (a in LOWER) {
    return LOWER[a]!.some((re) => re.test(to)) ? null : `${a}/ may not import ${b}/`;
  }
  if (a !== "engine") return `${a}/ is not in the table`;
  if (b === "confine") {
    const room = roomOf(from);
    return room === "door" || CONFINE_FROM.includes(room)
      ? null
      : `engine/${room}/ may not reach confine/`;
  }
  if (b !== "engine") {
    return b in LOWER ? null : `the engine may not import ${b}/`;
  }
  const ra = roomOf(from);
  const rb = roomOf(to);
  if (ra === rb) return null;
  if (rb === "door") return `engine/${ra}/ may not import the door (${to})`;
  if (ra === "door") return null;
  return rankOf(rb) < rankOf(ra) ? null : `engine/${ra}/ may not import engine/${rb}/`;
}

/** The imports of `file` (absolute) that break the table, as `from -> to: why`. */
export function forbidden(file: string, text: string): string[] {
  const bad: string[] = [];
  const from = file.slice(SRC.length);
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2]!;
    if (!spec.startsWith(".")) continue;
    const target = join(file, "..", spec);
    if (!target.startsWith(SRC) || !/\.tsx?$/.test(target)) continue;
    const to = target.slice(SRC.length);
    const why = broken(from, to);
    if (why !== null) bad.push(`${from} -> ${to}: ${why}`);
  }
  return bad;
}

Deno.test("every import of src/ keeps the table of parts and nevers", async () => {
  const bad: string[] = [];
  const seen = new Set<string>();
  for await (const file of files(SRC)) {
    seen.add(partOf(file.slice(SRC.length)));
    if (file.slice(SRC.length).startsWith("engine/") && file.split("/").length > 0) {
      const room = roomOf(file.slice(SRC.length));
      if (room !== "door") rankOf(room);
    }
    bad.push(...forbidden(file, await Deno.readTextFile(file)));
  }
  const known = new Set(["engine", ...Object.keys(FACES), ...Object.keys(LOWER)]);
  assert.deepEqual([...seen].filter((p) => p.endsWith(".ts") ? false : !known.has(p)), []);
  assert.ok(seen.has("engine") && seen.has("cli"), "src/ was not read");
  assert.deepEqual(bad, [], `imports against the table:\n${bad.join("\n")}`);
});

Deno.test("the table catches a reach past the door, into a room above, beside, or into confine", () => {
  const file = (rel: string) => join(SRC, rel);
  const check = (rel: string, lines: string[]) => forbidden(file(rel), lines.join("\n"));
  assert.deepEqual(
    check("cli/x.ts", [
      'import { a } from "../engine/mod.ts";',
      'import type { B } from "../store/record.ts";',
      'import { c } from "./y.ts";',
      'import { d } from "../sys/errors.ts";',
      'const e = await import("../confine/env.ts");',
      'export { f } from "../engine/run/walk.ts";',
    ]).map((line) => line.split(":")[0]),
    ["cli/x.ts -> store/record.ts", "cli/x.ts -> confine/env.ts", "cli/x.ts -> engine/run/walk.ts"],
  );
  assert.deepEqual(
    check("engine/run/x.ts", [
      'import { a } from "../core/chain.ts";',
      'import { b } from "../answer/cache.ts";',
      'import { c } from "../api.ts";',
      'import { d } from "../../confine/env.ts";',
      'import { e } from "./walk.ts";',
    ]).map((line) => line.split(":")[0]),
    ["engine/run/x.ts -> engine/answer/cache.ts", "engine/run/x.ts -> engine/api.ts"],
  );
  assert.deepEqual(
    check("engine/plan/x.ts", [
      'import { a } from "../eval/mod.ts";',
      'import { b } from "../../confine/secrets.ts";',
      'import { c } from "../run/walk.ts";',
    ]).map((line) => line.split(":")[0]),
    ["engine/plan/x.ts -> engine/eval/mod.ts", "engine/plan/x.ts -> confine/secrets.ts"],
  );
  assert.deepEqual(
    check("server/dash/api_types.ts", [
      'import type { A } from "../../store/record.ts";',
      'import type { B } from "../../store/runs.ts";',
      'import type { C } from "../../engine/follow/report.ts";',
    ]).map((line) => line.split(":")[0]),
    [
      "server/dash/api_types.ts -> store/runs.ts",
      "server/dash/api_types.ts -> engine/follow/report.ts",
    ],
  );
  assert.deepEqual(
    check("store/x.ts", ['import { a } from "../engine/mod.ts";', 'import { b } from "./y.ts";'])
      .map((line) => line.split(":")[0]),
    ["store/x.ts -> engine/mod.ts"],
  );
  assert.deepEqual(
    check("workers/x/argv.ts", [
      'import { a } from "../../confine/floor.ts";',
      'import { b } from "../../confine/env.ts";',
    ]).map((line) => line.split(":")[0]),
    ["workers/x/argv.ts -> confine/env.ts"],
  );
});
