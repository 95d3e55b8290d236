import assert from "node:assert/strict";
import { join } from "node:path";
import {
  checkReferences,
  extractReferences,
  type RefTree,
} from "../../../src/engine/answer/refs.ts";
import { findSymbol } from "../../../src/engine/answer/symbols.ts";
import { refTreeAt } from "../../../src/engine/answer/check.ts";
import { testSys } from "../../support/sys.ts";
import { git, tempRepo } from "../../support/temp.ts";

const APP = [
  "import { helper } from './util.ts';", // 1
  "", // 2
  "export function handleRequest(req: Request) {", // 3
  "  const url = new URL(req.url);", // 4
  "  if (url.pathname === '/') {", // 5
  "    return new Response('home');", // 6
  "  }", // 7
  "  const parts = url.pathname.split('/');", // 8
  "  const id = parts[2];", // 9
  "  const body = JSON.stringify({ id });", // 10
  "  const headers = { 'content-type': 'application/json' };", // 11
  "  return new Response(body, { headers });", // 12
  "}", // 13
  "", // 14
  "export class Router {", // 15
  "  routes = new Map();", // 16
  "  add(path: string) {", // 17
  "    const clean = path.trim();", // 18
  "    const lower = clean.toLowerCase();", // 19
  "    const parts = lower.split('/');", // 20
  "    const joined = parts.join('/');", // 21
  "    const key = joined || '/';", // 22
  "    this.routes.set(key, true);", // 23
  "    return key;", // 24
  "  }", // 25
  "}", // 26
].join("\n") + "\n";

/** A repository made for the test and the tree the checker sees (git's file list, the disk). */
async function repoTree(files: Record<string, string>, cwd = "") {
  const repo = await tempRepo(files);
  const listed = (await git(repo.path, "ls-files")).split("\n").filter(Boolean);
  const tree: RefTree = {
    files: listed,
    cwd,
    roots: [repo.path],
    read: (path) => Deno.readTextFile(join(repo.path, path)).catch(() => null),
  };
  return { repo, tree };
}

const FILES = {
  "src/app.ts": APP,
  "src/util.ts": "export function helper() {\n  return 1;\n}\n",
  "lib/util.ts": "export const other = 2;\n",
  "docs/guide.md": "# Guide\n\nline three\n",
};

Deno.test("extractReferences() reads path:line, ranges, columns and #L anchors, each once", () => {
  const refs = extractReferences([
    "See src/app.ts:3 and `src/app.ts:8-12`, also src/app.ts:4:10.",
    "Anchors: [x](src/app.ts#L15) and src/app.ts#L15-L20 and docs/guide.md#L1-3.",
    "Again src/app.ts:3. Not refs: 12:30, localhost:8080, http://example.com:80/x, v1.2:3",
  ].join("\n"));
  assert.deepEqual(refs.map((r) => [r.path, r.line, r.end]), [
    ["src/app.ts", 3, undefined],
    ["src/app.ts", 8, 12],
    ["src/app.ts", 4, undefined],
    ["src/app.ts", 15, undefined],
    ["src/app.ts", 15, 20],
    ["docs/guide.md", 1, 3],
  ]);
});

Deno.test("extractReferences() takes the backticked symbol next to a reference, not a farther one", () => {
  const refs = extractReferences([
    "- `handleRequest()` in `src/app.ts:3` parses the URL",
    "- src/app.ts:17 defines `add`; `Router` is elsewhere. Then `unrelated` much later on",
    "- `src/app.ts:9` and `src/app.ts:12` return `Response`",
  ].join("\n"));
  assert.deepEqual(refs.map((r) => [r.ref, r.symbol]), [
    ["src/app.ts:3", "handleRequest"],
    ["src/app.ts:17", "add"],
    ["src/app.ts:9", undefined],
    ["src/app.ts:12", "Response"],
  ]);
});

Deno.test("checkReferences() verifies lines and ranges in real files and says why others fail", async () => {
  const { repo, tree } = await repoTree(FILES);
  await using _ = repo;
  const result = await checkReferences(
    [
      "src/app.ts:3, src/app.ts:8-12, src/app.ts#L26, src/app.ts#L1-L26, docs/guide.md:3",
      "src/app.ts:27 and src/app.ts:18-30, src/app.ts:12-8, src/gone.ts:1, /etc/hosts:1",
    ].join("\n"),
    tree,
  );
  assert.equal(result.total, 10);
  assert.equal(result.verified, 5);
  assert.deepEqual(result.failed, [
    { ref: "src/app.ts:27", reason: "line 27 is past the end of the file (26 lines)" },
    { ref: "src/app.ts:18-30", reason: "line 30 is past the end of the file (26 lines)" },
    { ref: "src/app.ts:12-8", reason: "the range 12-8 runs backwards" },
    { ref: "src/gone.ts:1", reason: "no such file" },
    { ref: "/etc/hosts:1", reason: "outside the repository" },
  ]);
});

Deno.test("checkReferences() resolves bare names against the tree and reports ambiguity, never guesses", async () => {
  const { repo, tree } = await repoTree(FILES);
  await using _ = repo;
  const result = await checkReferences("app.ts:4, guide.md:1, util.ts:1, engine.ts:1", tree);
  const by = Object.fromEntries(result.checks.map((c) => [c.ref, c]));
  assert.equal(by["app.ts:4"]!.resolved, "src/app.ts");
  assert.equal(by["app.ts:4"]!.ok, true);
  assert.equal(by["guide.md:1"]!.resolved, "docs/guide.md");
  assert.equal(by["util.ts:1"]!.ok, false);
  assert.equal(by["util.ts:1"]!.reason, "ambiguous: 2 files match (lib/util.ts, src/util.ts)");
  assert.equal(by["engine.ts:1"]!.reason, "no such file");
});

Deno.test("checkReferences() takes paths relative to the worker's folder or the root; in the folder a bare name is not ambiguous", async () => {
  const { repo, tree } = await repoTree(FILES, "src");
  await using _ = repo;
  const result = await checkReferences(
    "app.ts:3, ./util.ts:2, src/app.ts:5, ../docs/guide.md:2, util.ts:1, ../../x.ts:1",
    tree,
  );
  assert.deepEqual(result.checks.map((c) => [c.ref, c.resolved ?? c.reason]), [
    ["app.ts:3", "src/app.ts"],
    ["./util.ts:2", "src/util.ts"],
    ["src/app.ts:5", "src/app.ts"],
    ["../docs/guide.md:2", "docs/guide.md"],
    ["util.ts:1", "src/util.ts"],
    ["../../x.ts:1", "no such file"],
  ]);
});

Deno.test("checkReferences() finds a named symbol near the cited line or in its enclosing definition", async () => {
  const { repo, tree } = await repoTree(FILES);
  await using _ = repo;
  const result = await checkReferences(
    [
      "- `handleRequest()` is at src/app.ts:3", // on the line
      "- `handleRequest` builds the body at src/app.ts:10", // enclosing function, 7 lines up
      "- `Router.add` stores a route at src/app.ts:23", // enclosing method, 6 lines up
      "- `Router` keeps routes at src/app.ts:24", // enclosing class, two levels up
      "- `helper` is imported at src/app.ts:2", // within 3 lines
      "- `Router` is defined at src/app.ts:6", // wrong: Router is at 15
      "- `missingThing()` at src/app.ts:4", // nowhere in the file
    ].join("\n"),
    tree,
  );
  assert.deepEqual(result.checks.map((c) => [c.symbol, c.ok]), [
    ["handleRequest", true],
    ["handleRequest", true],
    ["Router.add", true],
    ["Router", true],
    ["helper", true],
    ["Router", false],
    ["missingThing", false],
  ]);
  assert.deepEqual(result.failed.map((f) => f.reason), [
    "`Router` is not near line 6 nor in its enclosing definition (it is at line 15)",
    "`missingThing` is not near line 4 nor in its enclosing definition",
  ]);
});

Deno.test("checkReferences() counts an ignored file on disk cited by its path, not one found by name", async () => {
  const { repo, tree } = await repoTree({ ...FILES, ".gitignore": "dist/\n" });
  await using _ = repo;
  await Deno.mkdir(join(repo.path, "dist"));
  await Deno.writeTextFile(join(repo.path, "dist/out.js"), "a\nb\n");
  const result = await checkReferences("dist/out.js:2, dist/out.js:3, out.js:1", tree);
  assert.deepEqual(result.checks.map((c) => [c.ref, c.ok, c.reason]), [
    ["dist/out.js:2", true, undefined],
    ["dist/out.js:3", false, "line 3 is past the end of the file (2 lines)"],
    ["out.js:1", false, "no such file"],
  ]);
});

Deno.test("checkReferences() maps absolute paths in a copy or a view back to the repository", async () => {
  const { repo, tree } = await repoTree(FILES);
  await using _ = repo;
  const copy = "/state/copies/20261201-120000-abcd";
  const mapped: RefTree = { ...tree, roots: [repo.path, copy] };
  const result = await checkReferences(
    `${copy}/src/app.ts:3 and ${repo.path}/src/util.ts:2 and ${copy}/src/none.ts:1`,
    mapped,
  );
  assert.deepEqual(result.checks.map((c) => [c.resolved ?? c.reason]), [
    ["src/app.ts"],
    ["src/util.ts"],
    ["no such file"],
  ]);
});

Deno.test("findSymbol() works for indented Python too", () => {
  const py = [
    "class Store:", // 1
    "    def load(self, key):", // 2
    "        if key in self.items:", // 3
    "            value = self.items[key]", // 4
    "            value = value.strip()", // 5
    "            value = value.lower()", // 6
    "            value = value.upper()", // 7
    "            return value", // 8
    "        return None", // 9
  ].join("\n");
  assert.equal(findSymbol(py, "load", { line: 8, end: 8, slack: 3 }).ok, true);
  assert.equal(findSymbol(py, "Store.load", { line: 8, end: 8, slack: 3 }).ok, true);
  assert.equal(findSymbol(py, "Store", { line: 8, end: 8, slack: 3 }).ok, true);
  assert.equal(findSymbol(py, "save", { line: 8, end: 8, slack: 3 }).ok, false);
});

Deno.test("refTreeAt() checks an answer against a directory's tree as it is now, untracked files too", async () => {
  const { repo } = await repoTree(FILES);
  await using _ = repo;
  await Deno.writeTextFile(join(repo.path, "src/draft.ts"), "one\ntwo\n");
  const state = await Deno.makeTempDir();
  try {
    const sys = testSys({ stateDir: state });
    const tree = await refTreeAt(sys, join(repo.path, "src"));
    assert.ok(tree);
    assert.equal(tree.cwd, "src");
    const result = await checkReferences("draft.ts:2, ./app.ts:3, ../docs/guide.md:9", tree);
    assert.deepEqual(result.failed, [
      { ref: "../docs/guide.md:9", reason: "line 9 is past the end of the file (3 lines)" },
    ]);
    assert.equal(await refTreeAt(sys, state), null);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});
