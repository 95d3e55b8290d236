import assert from "node:assert/strict";
import { formatRatio, formatUsd, grouped } from "../../src/receipts/format.ts";

Deno.test("grouped() writes numbers as toLocaleString('en-US') does", () => {
  for (const n of [0, 7, 999, 1000, 12_345, 1_234_567, -9_876_543, 12.5, 1234.5678, 0.0004]) {
    assert.equal(grouped(n), n.toLocaleString("en-US"), String(n));
  }
  for (const n of [0, 1234.5, 1_000_000.004, 99.999]) {
    const want = n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    assert.equal(grouped(n, 2), want, String(n));
  }
  assert.equal(formatUsd(1234.5), "$1,234.50");
  assert.equal(formatRatio(12_345), "12,345x");
});
