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

Deno.test("normalize: its quick return for a normal path agrees with the full collapse", () => {
  // The full collapse, as normalize did before the quick return.
  const slow = (path: string) => {
    if (path === "") return ".";
    const absolute = path.startsWith("/");
    const out: string[] = [];
    for (const part of path.split("/")) {
      if (part === "" || part === ".") continue;
      if (part === "..") {
        if (out.length > 0 && out.at(-1) !== "..") out.pop();
        else if (!absolute) out.push("..");
      } else out.push(part);
    }
    const joined = out.join("/");
    return absolute ? `/${joined}` : joined || ".";
  };
  const pieces = ["a", "/", ".", "..", "b.c", "...", ".d", "e..", " "];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let n = 0; n < 20000; n++) {
    let path = "";
    for (let k = Math.floor(next() * 8); k > 0; k--) path += pieces[Math.floor(next() * 9)]!;
    assert.equal(normalize(path), slow(path), JSON.stringify(path));
  }
});
