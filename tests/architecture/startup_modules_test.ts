/**
 * Start-up cost, guarded by counting (not timing) the modules each command line loads, from
 * Deno's own module graph (_module_graph.ts): `--version` and `help` load no engine, no server
 * and no npm package; `status`, `ls` and `run` load the engine's door but neither Hono nor the MCP
 * SDK; `status` and `ls` load no npm package (zod costs them a third of their start-up) and
 * nothing that executes runs; and no count grows past its bound. A bound is a little above the
 * count measured when it was set: an import that pulls more into a command's path fails here, and is either worth it
 * (raise the bound in the same commit, saying why) or made lazy (`await import()` where used).
 *
 * Measured 2026-12-05 (project files; before -> after the leaf modules and lazy imports):
 * `--version` 234 -> 12, `help` 267 -> 46, `status` and `ls` 240 -> 242, `run` 262 (Hono
 * included) -> 246. Then the door imported lazily what only starting, executing, reviewing,
 * auditing or checking runs needs (engine/api.ts), and the features' hooks became a loader
 * (run/hooks.ts): `status` and `ls` 246 -> 95, `run` 250 -> 99 (what `run` loads once it
 * executes a run is past this count: the door's own lazy imports); then zod left their path
 * (the record's schemas in store/record_schema.ts, the door's in `schemas()`): 95 -> 91 and no
 * npm package, `run` 95. `benchmarks/startup/` times the same commands against an empty script.
 */
import assert from "node:assert/strict";
import {
  fileUrl,
  lazyImports,
  loadedBy,
  moduleGraph,
  ROOT,
  staticClosure,
} from "./_module_graph.ts";

/** The most project files each command line may load. */
const BOUNDS: Record<string, number> = {
  "--version": 16,
  help: 55,
  status: 100,
  ls: 100,
  run: 105,
};

const SERVERS = [
  "hono",
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/server",
  "@modelcontextprotocol/core",
];

const graph = await moduleGraph();

const where = (file: string) => file.slice(file.indexOf("/src/") + 1);

for (const [command, bound] of Object.entries(BOUNDS)) {
  Deno.test(`pitroom ${command} loads at most ${bound} modules`, async () => {
    const loaded = await loadedBy(graph, command);
    assert.ok(
      loaded.files.length <= bound,
      `pitroom ${command} loads ${loaded.files.length} project modules (bound ${bound}); ` +
        `npm: ${loaded.npm.join(", ") || "none"}`,
    );
    const npm = loaded.npm.map((p) => p.slice(0, p.lastIndexOf("@")));
    assert.deepEqual(
      npm.filter((p) => SERVERS.includes(p)),
      [],
      `pitroom ${command} loads a server's package`,
    );
    if (command === "status" || command === "ls") {
      // Reading runs executes none: no run, sandbox, worker backend nor feature is loaded.
      const executing = loaded.files.filter((f) =>
        /\/src\/(engine\/features\.ts|engine\/run\/lifecycle\.ts|confine\/sandbox\/|workers\/registry\.ts)/
          .test(f)
      );
      assert.deepEqual(executing.map(where), [], `pitroom ${command} loads what executes runs`);
      assert.deepEqual(npm, [], `pitroom ${command} loads npm packages`);
    }
    if (command === "--version" || command === "help") {
      assert.deepEqual(npm, [], `pitroom ${command} loads npm packages`);
      const heavy = loaded.files.filter((f) => /\/src\/(engine|server|store|confine)\//.test(f));
      assert.deepEqual(heavy.map(where), [], `pitroom ${command} loads the engine`);
    }
  });
}

Deno.test("a foreground run's path loads no npm package: the door checks its request without zod", async () => {
  // What `pitroom run` loads once it executes a run: the door's lazy imports on that path (the
  // request's check, settings, build and create, the lifecycle, the features' hooks).
  const onPath = lazyImports(graph, fileUrl("src/engine/api.ts")).filter((s) =>
    /\/src\/engine\/(request\/(check|request|build|create)|core\/load_settings|run\/lifecycle|features)\.ts$/
      .test(s)
  );
  assert.ok(onPath.length >= 5, onPath.map(where).join(", "));
  const run = await loadedBy(graph, "run");
  const loaded = staticClosure(graph, [...run.modules, ...onPath]);
  const npm = [...new Set([...loaded].flatMap((s) => graph.modules.get(s)?.npmPackage ?? []))];
  assert.deepEqual(npm, [], "a foreground run loads npm packages");
  const files = [...loaded].filter((s) => s.startsWith("file:"));
  // Measured 2026-12-05: 233 (zod's 65 modules gone from the path); 267 once the registry held
  // five more backends (qwen, kilo, copilot, crush and the ACP worker), the launcher seam and the
  // shared snapshot. 2026-12-06: 195, with each backend loaded by name when a run's chain names
  // it (workers/find.ts), and what only a changed tree, an apply, a revert or a due audit needs
  // loaded when it is needed (engine/tree/tree.ts, workspace.ts, audit/complete.ts).
  assert.ok(files.length <= 205, `a foreground run loads ${files.length} project modules`);
  const unneeded = files.map(where).filter((f) =>
    /^src\/workers\/(registry|lookup|(claude|codex|copilot|crush|gemini|kilo|opencode|qwen)\/.*|acp\/mod)\.ts$/
      .test(f) ||
    /^src\/vcs\/(apply|merge|revert|carry_out|patch_undo|moved|review_diff)\.ts$/.test(f) ||
    /^src\/engine\/tree\/(tree_watch|journaled|revert_merge|attribute|file_history|worker_changes)\.ts$/
      .test(f) ||
    /^src\/engine\/audit\/(choose|start|follow)\.ts$/.test(f)
  );
  assert.deepEqual(unneeded, [], "a foreground run loads what only some runs need");
});

Deno.test("the graph reader sees what a command loads lazily", async () => {
  // mcp's declaration loads nothing of the server; its run does: a reader that missed lazy
  // imports would count every command as cheap as --version.
  const status = await loadedBy(graph, "status");
  assert.ok(status.files.some((f) => f.endsWith("/src/engine/mod.ts")));
  assert.ok(status.files.some((f) => f.endsWith("/src/cli/status.ts")));
  const dash = await loadedBy(graph, "dash");
  assert.ok(dash.npm.some((p) => p.startsWith("hono@")), `dash: ${dash.npm.join(", ")}`);
});

Deno.test("a long run's live view loads no server: neither Hono nor the dashboard's serving modules", () => {
  // What `run` (and the host) load when a run goes long: live_view.ts and its lazy imports. The
  // dashboard is launched as its own process; `"dash": false` loads nothing more at all.
  const liveView = fileUrl("src/cli/live_view.ts");
  const loaded = staticClosure(graph, [liveView, ...lazyImports(graph, liveView)]);
  const npm = [...loaded].flatMap((s) => graph.modules.get(s)?.npmPackage ?? []);
  assert.deepEqual(npm.filter((p) => p.startsWith("hono@")), [], "the live view loads Hono");
  const serving = [...loaded].filter((s) =>
    /\/src\/server\/dash\/(mod|detach|serve|app|routes|stream)\.ts$/.test(s)
  );
  assert.deepEqual(serving.map(where), [], "the live view loads the dashboard's server");
});

Deno.test("the MCP stdio front, which answers a client's discover probe, loads no package", async () => {
  // A 2026-07-28 client gives a stdio server 3 s to answer its probe, start-up included.
  const front = await moduleGraph("src/server/mcp/stdio_front.ts");
  const modules = [...front.modules.values()];
  const npm = modules.filter((m) => m.kind === "npm" || m.specifier.startsWith("npm:"));
  assert.deepEqual(npm.map((m) => m.specifier), []);
  const files = modules.filter((m) => m.specifier.startsWith("file:"));
  assert.ok(files.length <= 4, files.map((m) => m.specifier.slice(ROOT.length + 7)).join(", "));
});

Deno.test("the Kubernetes client is loaded by a cluster host's run only, and by no literal import a bundler follows", () => {
  // A run with a host loads remote/mod.ts (lazily, through the features' hooks); it loads the
  // cluster launcher only for a kubernetes host, and the client only from there.
  const remote = fileUrl("src/engine/remote/mod.ts");
  const onHostPath = staticClosure(graph, [remote]);
  const npm = [...new Set([...onHostPath].flatMap((s) => graph.modules.get(s)?.npmPackage ?? []))];
  assert.deepEqual(npm, [], "a host's run path loads npm packages");
  const cluster = fileUrl("src/engine/remote/cluster.ts");
  assert.ok(!onHostPath.has(cluster), "the cluster launcher is on every host run's path");
  assert.ok(lazyImports(graph, remote).includes(cluster));
  // Nor is it in the graph at all: a bundler follows every literal import, lazy or not, and the
  // client alone made the shipped bundle 21.7 MB (tests/dist/compile_test.ts holds its budget).
  // (Its types are imported: a type loads nothing and no bundler follows it.)
  const code = [...graph.modules.values()].flatMap((m) =>
    (m.dependencies ?? []).flatMap((d) => d.code?.specifier ?? [])
  );
  assert.deepEqual(code.filter((s) => s.includes("@kubernetes/")), []);
});
