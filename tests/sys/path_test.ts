import assert from "node:assert/strict";
import * as node from "node:path";
import {
  basename,
  dirname,
  fromFileUrl,
  isAbsolute,
  join,
  normalize,
  resolve,
} from "../../src/sys/path.ts";

const SAMPLES = [
  "",
  ".",
  "/",
  "a",
  "a/",
  "/a",
  "/a/",
  "a/b",
  "/a/b/",
  "a//b",
  "a/./b",
  "a/../b",
  "../a",
  "/..",
  "/a/../..",
  "a/b/../../..",
  "./a/b/..",
];

Deno.test("normalize(), dirname() and basename() agree with node:path on POSIX paths", () => {
  for (const p of SAMPLES) {
    assert.equal(
      normalize(p),
      node.posix.normalize(p).replace(/(.)\/$/, "$1"),
      `normalize(${JSON.stringify(p)})`,
    );
    assert.equal(dirname(p), node.posix.dirname(p), `dirname(${JSON.stringify(p)})`);
    assert.equal(basename(p), node.posix.basename(p), `basename(${JSON.stringify(p)})`);
    assert.equal(isAbsolute(p), node.posix.isAbsolute(p));
  }
});

Deno.test("join() and resolve() agree with node:path", () => {
  const cases: string[][] = [["a", "b"], ["/a", "b", "../c"], ["a", "", "b"], ["/x", "/y"], [
    "a",
    "..",
  ], ["/", "a"]];
  for (const c of cases) {
    assert.equal(join(...c), node.posix.join(...c), `join(${JSON.stringify(c)})`);
    assert.equal(resolve(...c), node.posix.resolve(...c), `resolve(${JSON.stringify(c)})`);
  }
  assert.equal(resolve(), Deno.cwd());
});

Deno.test("fromFileUrl() decodes a file URL and refuses others", () => {
  assert.equal(fromFileUrl("file:///tmp/a%20b/c.ts"), "/tmp/a b/c.ts");
  assert.throws(() => fromFileUrl("https://example.invalid/x"), TypeError);
});
