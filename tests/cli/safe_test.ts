import assert from "node:assert/strict";
import { safe, safeLine, safeText } from "../../src/cli/safe.ts";

Deno.test("safe() escapes every control character, newlines and bidi overrides included", () => {
  assert.equal(safe("a\x1b[2Jb"), "a\\e[2Jb");
  assert.equal(safe("\x1b]0;title\x07"), "\\e]0;title\\x07");
  assert.equal(safe("one\ntwo\r\tthree"), "one\\ntwo\\r\\tthree");
  assert.equal(safe("\x00\x7f\x9b"), "\\x00\\x7f\\x9b");
  assert.equal(safe("abc\u202edef\u2066"), "abc\\u{202e}def\\u{2066}");
  assert.equal(safe("plain ünïcode → ok"), "plain ünïcode → ok");
});

Deno.test("safeText() keeps lines and tabs, escapes the rest; safeLine() flattens then escapes", () => {
  assert.equal(safeText("a\r\nb\tc\x1b[31m\rd"), "a\nb\tc\\e[31m\\rd");
  assert.equal(safeLine("a\nb\x1b[Kc", 80), "a b\\e[Kc");
});
