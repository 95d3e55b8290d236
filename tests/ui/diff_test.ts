import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { parseDiff } from "../../ui/src/diff.ts";

const PATCH = `diff --git a/src/a.ts b/src/a.ts
index 1111111..2222222 100644
--- a/src/a.ts
+++ b/src/a.ts
@@ -1,3 +1,4 @@
 /* start
-old */ const a = 1;
+new */ const a = 2;
+const b = "x";
 export { a };
diff --git a/notes.md b/notes.md
new file mode 100644
--- /dev/null
+++ b/notes.md
@@ -0,0 +1 @@
+# Notes
\\ No newline at end of file
diff --git a/logo.png b/logo.png
Binary files a/logo.png and b/logo.png differ
`;

Deno.test("parseDiff() splits a patch into files with their status, language and counts", () => {
  const files = parseDiff(PATCH);
  assertEquals(
    files.map((f) => [f.path, f.status, f.language, f.added, f.removed, f.binary]),
    [
      ["src/a.ts", "modified", "typescript", 2, 1, false],
      ["notes.md", "added", "markdown", 1, 0, false],
      ["logo.png", "modified", null, 0, 0, true],
    ],
  );
});

Deno.test("parseDiff() numbers each line on its side", () => {
  const [a] = parseDiff(PATCH);
  assertEquals(
    a!.hunks[0]!.lines.map((l) => [l.kind, l.old, l.new]),
    [
      ["ctx", 1, 1],
      ["del", 2, null],
      ["add", null, 2],
      ["add", null, 3],
      ["ctx", 3, 4],
    ],
  );
});

Deno.test("parseDiff() highlights each side as its own file (a comment open in both)", () => {
  const [a] = parseDiff(PATCH);
  const lines = a!.hunks[0]!.lines;
  // The comment opened in the context line closes in the removed and in the added line.
  assertEquals(lines[1]!.tokens[0], { cls: "c", text: "old */" });
  assertEquals(lines[2]!.tokens[0], { cls: "c", text: "new */" });
  assertEquals(lines[3]!.tokens.find((t) => t.cls === "s")?.text, '"x"');
  assertEquals(lines[4]!.tokens[0], { cls: "k", text: "export" });
});

Deno.test("parseDiff() keeps the no-newline note and a rename", () => {
  const [, md] = parseDiff(PATCH);
  assertEquals(md!.hunks[0]!.lines.map((l) => l.kind), ["add", "note"]);
  const [r] = parseDiff(
    "diff --git a/x.py b/y.py\nsimilarity index 90%\nrename from x.py\nrename to y.py\n",
  );
  assertEquals([r!.path, r!.oldPath, r!.status, r!.language], [
    "y.py",
    "x.py",
    "renamed",
    "python",
  ]);
});

Deno.test("parseDiff() of an empty patch is no files", () => {
  assertEquals(parseDiff(""), []);
});
