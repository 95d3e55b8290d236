/** Which runs the answer cache may answer: read questions, never an audit or a review again. */
import assert from "node:assert/strict";
import { cacheable } from "../../../src/engine/answer/cache.ts";
import type { RunRecord } from "../../../src/store/record.ts";

const base = {
  mode: "read",
  web: false,
  settings: { maxParallel: 1, limits: {}, cacheDays: 7 },
} as unknown as RunRecord;

Deno.test("an audit run and a review run are never answered from the cache", () => {
  assert.equal(cacheable(base), true);
  assert.equal(cacheable({ ...base, auditOf: { run: "x", kind: "audit" } }), false);
  assert.equal(
    cacheable({ ...base, review: { kind: "task", of: "x", redacted: { files: [], secrets: 0 } } }),
    false,
  );
  assert.equal(cacheable({ ...base, taskIndex: 0 }), false);
  assert.equal(cacheable({ ...base, mode: "write" }), false);
});
