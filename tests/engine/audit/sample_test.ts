import assert from "node:assert/strict";
import { inSample, wantsAudit } from "../../../src/engine/audit/sample.ts";

function ids(n: number): string[] {
  return Array.from(
    { length: n },
    (_, i) =>
      `20261201-1200${String(i % 60).padStart(2, "0")}-${
        (i * 2654435761 >>> 0).toString(16).slice(-4).padStart(4, "0")
      }`,
  );
}

Deno.test("inSample() puts the same run always in or always out", () => {
  for (const id of ids(200)) {
    const first = inSample(id, 0.3);
    for (let i = 0; i < 5; i++) assert.equal(inSample(id, 0.3), first, id);
  }
  // Known values, so another process (or another version) draws the same sample.
  const known = ["0000", "0001", "0002", "0003", "0004", "0005"].map((hex) =>
    inSample(`20261201-120000-${hex}`, 0.5)
  );
  assert.deepEqual(known, [true, false, false, false, false, true]);
});

Deno.test("inSample() takes none at 0, every run at 1, and about the rate between", () => {
  const all = ids(2000);
  // Ids of the same second, differing only in their last hex digits, spread too.
  const sameSecond = Array.from(
    { length: 4096 },
    (_, i) => `20261201-120000-${i.toString(16).padStart(4, "0")}`,
  );
  const half = sameSecond.filter((id) => inSample(id, 0.5)).length / sameSecond.length;
  assert.ok(half > 0.45 && half < 0.55, `share ${half}`);
  assert.equal(all.filter((id) => inSample(id, 0)).length, 0);
  assert.equal(all.filter((id) => inSample(id, 1)).length, all.length);
  const share = all.filter((id) => inSample(id, 0.25)).length / all.length;
  assert.ok(share > 0.2 && share < 0.3, `share ${share}`);
  // A larger rate keeps every run a smaller one took (the sample grows, it is not redrawn).
  for (const id of all) if (inSample(id, 0.1)) assert.ok(inSample(id, 0.5), id);
});

Deno.test("wantsAudit(): --audit and --no-audit win over the sample", () => {
  const id = ids(1)[0]!;
  assert.equal(wantsAudit({ id, auditWanted: true }, 0), true);
  assert.equal(wantsAudit({ id, auditWanted: false }, 1), false);
  assert.equal(wantsAudit({ id }, 1), true);
  assert.equal(wantsAudit({ id }, 0), false);
});
