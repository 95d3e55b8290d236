import assert from "node:assert/strict";
import { oneLine } from "../../src/sys/text.ts";

Deno.test("oneLine() flattens whitespace and keeps short text whole", () => {
  assert.equal(oneLine("  a\n\t b  ", 10), "a b");
  assert.equal(oneLine("x".repeat(10), 10), "x".repeat(10));
});

Deno.test("oneLine() cuts a long text to max characters with an ellipsis at the end", () => {
  const cut = oneLine("x".repeat(200), 120);
  assert.equal(cut.length, 120);
  assert.ok(cut.endsWith("…"));
});

Deno.test("oneLine() with keepEnd keeps the end of a long path", () => {
  const cut = oneLine(`/very/long/${"d/".repeat(50)}file.ts`, 20, { keepEnd: true });
  assert.equal(cut.length, 20);
  assert.ok(cut.startsWith("…") && cut.endsWith("/file.ts"));
});
