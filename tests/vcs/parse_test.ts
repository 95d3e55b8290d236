/** The pure parts of vcs/: git output parsers, the staleness check, path helpers. */
import assert from "node:assert/strict";
import { mergeChanges, parseNumstatZ, parseRawZ } from "../../src/vcs/diff_parse.ts";
import { parseRepoQuery } from "../../src/vcs/repo.ts";
import { parentsDeepestFirst } from "../../src/vcs/revert.ts";
import { ignoredEntries, isUnderIgnored, parseLsFilesZ } from "../../src/vcs/snapshot.ts";
import { quoteAlternate } from "../../src/vcs/store.ts";
import { changedSince, type Entry, type PathState } from "../../src/vcs/worktree_state.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const Z = "0".repeat(40);

Deno.test("parseRawZ() reads added, modified, deleted and mode-only records", () => {
  const raw = [
    `:000000 100644 ${Z} ${A} A`,
    "new file.txt",
    `:100644 100755 ${A} ${A} M`,
    "tools/run.sh",
    `:100644 000000 ${B} ${Z} D`,
    "ünï\tname",
    `:100644 120000 ${A} ${B} T`,
    "link",
    "",
  ].join("\0");
  assert.deepStrictEqual(parseRawZ(raw), [
    {
      path: "new file.txt",
      status: "added",
      oldMode: null,
      newMode: "100644",
      oldBlob: null,
      newBlob: A,
    },
    {
      path: "tools/run.sh",
      status: "modified",
      oldMode: "100644",
      newMode: "100755",
      oldBlob: A,
      newBlob: A,
    },
    {
      path: "ünï\tname",
      status: "deleted",
      oldMode: "100644",
      newMode: null,
      oldBlob: B,
      newBlob: null,
    },
    {
      path: "link",
      status: "modified",
      oldMode: "100644",
      newMode: "120000",
      oldBlob: A,
      newBlob: B,
    },
  ]);
  assert.deepStrictEqual(parseRawZ(""), []);
  assert.throws(() => parseRawZ("garbage\0path\0"), /Unexpected raw diff record: "garbage"/);
});

Deno.test("parseNumstatZ() reads line counts and marks binary files with null", () => {
  const stats = parseNumstatZ("3\t1\ta.txt\0-\t-\tlogo.bin\0" + "0\t0\twith\ttab\0");
  assert.deepStrictEqual([...stats], [
    ["a.txt", { added: 3, removed: 1 }],
    ["logo.bin", null],
    ["with\ttab", { added: 0, removed: 0 }],
  ]);
});

Deno.test("mergeChanges() joins line counts, binary flags, and zero for uncounted paths", () => {
  const raw = parseRawZ(
    [`:100644 100644 ${A} ${B} M`, "a.txt", `:100644 100644 ${A} ${B} M`, "b.bin", ""].join("\0"),
  );
  const merged = mergeChanges(raw, parseNumstatZ("2\t5\ta.txt\0-\t-\tb.bin\0"));
  assert.deepStrictEqual(
    merged.map((f) => [f.path, f.added, f.removed, f.binary]),
    [["a.txt", 2, 5, false], ["b.bin", 0, 0, true]],
  );
  assert.deepStrictEqual(
    mergeChanges(raw, new Map()).map((f) => [f.added, f.binary]),
    [[0, false], [0, false]],
  );
});

Deno.test("parseRepoQuery() needs six lines and a known object format", () => {
  const lines = ["/r", "/r/.git", "/r/.git", "/r/.git/objects", "/r/.git/index"];
  assert.deepStrictEqual(parseRepoQuery([...lines, "sha256", ""].join("\n")), {
    top: "/r",
    gitDir: "/r/.git",
    commonDir: "/r/.git",
    objectsDir: "/r/.git/objects",
    indexFile: "/r/.git/index",
    objectFormat: "sha256",
  });
  assert.equal(parseRepoQuery([...lines, "md5"].join("\n")), null);
  assert.equal(parseRepoQuery(lines.join("\n")), null);
});

Deno.test("parseLsFilesZ() splits directory entries (without their slash) from files", () => {
  assert.deepStrictEqual(parseLsFilesZ("empty/\0a file\0deep/er/\0"), {
    dirs: ["empty", "deep/er"],
    files: ["a file"],
  });
  assert.deepStrictEqual(parseLsFilesZ(""), { dirs: [], files: [] });
});

Deno.test("ignoredEntries() drops directories that only hold ignored files", () => {
  const listed = parseLsFilesZ(".env\0logs/\0logs/a.log\0node_modules/\0");
  assert.deepStrictEqual(ignoredEntries(listed, ["empty", "logs"]), [
    ".env",
    "logs/a.log",
    "node_modules/",
  ]);
});

Deno.test("ignoredEntries() keeps nested folders that merely hold ignored files out", () => {
  // As git lists them: `*.log` and `node_modules/` ignored; g/ and k/ hold nothing else.
  const listed = parseLsFilesZ("g/\0g/h/\0g/h/z.log\0k/\0k/a.log\0k/node_modules/\0");
  assert.deepStrictEqual(ignoredEntries(listed, ["g", "k"]), [
    "g/h/z.log",
    "k/a.log",
    "k/node_modules/",
  ]);
});

Deno.test("isUnderIgnored() matches ignored files exactly and directories by prefix", () => {
  const ignored = [".env", "node_modules/"];
  assert.equal(isUnderIgnored(".env", ignored), true);
  assert.equal(isUnderIgnored(".env.example", ignored), false);
  assert.equal(isUnderIgnored("node_modules/x/y.js", ignored), true);
  assert.equal(isUnderIgnored("node_modules_other/y.js", ignored), false);
});

Deno.test("parentsDeepestFirst() lists every ancestor once, deepest first", () => {
  assert.deepStrictEqual(parentsDeepestFirst(["a/b/c.txt", "a/d.txt", "top.txt", "a/b/e/f"]), [
    "a/b/e",
    "a/b",
    "a",
  ]);
});

Deno.test("quoteAlternate() quotes only paths holding the list separator", () => {
  assert.equal(quoteAlternate("/repo/.git/objects"), "/repo/.git/objects");
  assert.equal(quoteAlternate('/odd:dir/"x"\\'), '"/odd:dir/\\"x\\"\\\\"');
});

Deno.test("changedSince() flags content, mode, presence and kind differences", () => {
  const file = (mode: string, blob: string): PathState => ({
    kind: "entry",
    entry: { mode, blob },
  });
  const expected = new Map<string, Entry | null>([
    ["same", { mode: "100644", blob: A }],
    ["content", { mode: "100644", blob: A }],
    ["mode", { mode: "100755", blob: A }],
    ["gone", { mode: "100644", blob: A }],
    ["deleted", null],
    ["deleted-now-dir", null],
    ["came-back", null],
    ["file-now-dir", { mode: "100644", blob: A }],
    ["submodule", { mode: "160000", blob: A }],
  ]);
  const now = new Map<string, PathState>([
    ["same", file("100644", A)],
    ["content", file("100644", B)],
    ["mode", file("100644", A)],
    ["deleted", { kind: "absent" }],
    ["deleted-now-dir", { kind: "dir" }],
    ["came-back", file("100644", A)],
    ["file-now-dir", { kind: "dir" }],
  ]);
  assert.deepStrictEqual(changedSince(expected, now, { fileMode: true }), [
    "content",
    "mode",
    "gone",
    "came-back",
    "file-now-dir",
  ]);
  assert.deepStrictEqual(changedSince(expected, now, { fileMode: false }), [
    "content",
    "gone",
    "came-back",
    "file-now-dir",
  ]);
});
