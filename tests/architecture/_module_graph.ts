/**
 * Which modules each command loads, read from Deno's own module graph (`deno info --json
 * main.ts`), not timed: the static closure of `main.ts` (what every command loads before it
 * looks at argv), plus, for a command, its declaration module (command_list.ts's lazy import)
 * and the modules that declaration's `run` imports lazily, each with its static closure. Type-only
 * imports load nothing; redirects (`npm:zod@3/v4` -> `npm:/zod@3.25.76/v4`) are followed.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Dependency {
  specifier: string;
  code?: { specifier?: string };
  isDynamic?: boolean;
}

interface GraphModule {
  specifier: string;
  kind?: string;
  npmPackage?: string;
  dependencies?: Dependency[];
}

/** Deno's module graph of one entry. */
export interface Graph {
  modules: Map<string, GraphModule>;
  redirects: Record<string, string>;
}

/** The graph of `entry` (relative to the repository root), as `deno info --json` reads it. */
export async function moduleGraph(entry = "main.ts"): Promise<Graph> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", `--config=${join(ROOT, "deno.json")}`, join(ROOT, entry)],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr)}`);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: GraphModule[];
    redirects: Record<string, string>;
  };
  return { modules: new Map(info.modules.map((m) => [m.specifier, m])), redirects: info.redirects };
}

/** A path under the repository root as the graph names it. */
export function fileUrl(path: string): string {
  return new URL(path, `file://${ROOT}`).href;
}

function target(graph: Graph, dep: Dependency): string | undefined {
  let s = dep.code?.specifier;
  for (let hops = 0; s !== undefined && s in graph.redirects && hops < 10; hops++) {
    s = graph.redirects[s];
  }
  return s;
}

/** Every module `roots` load statically (dynamic imports not followed). */
export function staticClosure(graph: Graph, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...roots];
  while (todo.length > 0) {
    const s = todo.pop()!;
    if (seen.has(s)) continue;
    const m = graph.modules.get(s);
    if (m === undefined) throw new Error(`${s} is not in the module graph`);
    seen.add(s);
    for (const dep of m.dependencies ?? []) {
      const to = target(graph, dep);
      if (to !== undefined && !dep.isDynamic) todo.push(to);
    }
  }
  return seen;
}

/** The modules `module` imports lazily (`await import("...")`). */
export function lazyImports(graph: Graph, module: string): string[] {
  const m = graph.modules.get(module);
  if (m === undefined) throw new Error(`${module} is not in the module graph`);
  return (m.dependencies ?? []).filter((d) => d.isDynamic).flatMap((d) => target(graph, d) ?? []);
}

/** The declaration module of every command, from command_list.ts (`["ls", () => import(...)]`). */
export async function commandModules(): Promise<Map<string, string>> {
  const text = await Deno.readTextFile(join(ROOT, "src/cli/command_list.ts"));
  const found = new Map<string, string>();
  for (const m of text.matchAll(/\["([\w-]+)",\s*\(\)\s*=>\s*import\("\.\/([\w.]+)"\)/g)) {
    found.set(m[1]!, fileUrl(`src/cli/${m[2]!}`));
  }
  return found;
}

/** What one command line loads: its modules, split into ours and npm packages. */
export interface Loaded {
  modules: Set<string>;
  /** Project files (file: URLs under the repository). */
  files: string[];
  /** npm packages reached (`zod@3.25.76`). */
  npm: string[];
}

function summarise(graph: Graph, modules: Set<string>): Loaded {
  const files = [...modules].filter((s) => s.startsWith("file:")).sort();
  const npm = new Set<string>();
  for (const s of modules) {
    const pkg = graph.modules.get(s)?.npmPackage;
    if (pkg !== undefined) npm.add(pkg.split("_")[0]!);
  }
  return { modules, files, npm: [...npm].sort() };
}

/**
 * What `pitroom <command>` loads: main.ts's static closure; `--version` stops there; a command
 * adds its declaration module and everything its `run` imports lazily; `help` (and `--help`,
 * a part of it) also every declaration, since the overview lists them all (commands.ts).
 */
export async function loadedBy(graph: Graph, command: string): Promise<Loaded> {
  const main = fileUrl("main.ts");
  if (command === "--version") return summarise(graph, staticClosure(graph, [main]));
  const declarations = await commandModules();
  const declaration = declarations.get(command);
  if (declaration === undefined) throw new Error(`no command "${command}" in command_list.ts`);
  const roots = [main, declaration, ...lazyImports(graph, declaration)];
  if (command === "help") roots.push(fileUrl("src/cli/help.ts"), ...declarations.values());
  return summarise(graph, staticClosure(graph, roots));
}
