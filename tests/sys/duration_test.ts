/**
 * The CLI reads durations with sys/duration.ts (a leaf, so flags parse before any engine loads);
 * the engine reads its config with engine/core/settings.ts. Until they are one module, the two
 * give the same answer to every input here, and the same bound.
 */
import assert from "node:assert/strict";
import * as leaf from "../../src/sys/duration.ts";
import { durationMs, MAX_DURATION } from "../../src/engine/core/settings.ts";
import { parseDuration } from "../../src/engine/core/duration.ts";
import { UsageError } from "../../src/sys/errors.ts";

const INPUTS = [
  "90s",
  "30m",
  "1h",
  "2h30m",
  "1h30m15s",
  "7d",
  "8d",
  "1.5h",
  "0.5",
  "90",
  " 90s ",
  "250ms",
  "1d2h",
  "0",
  "0s",
  "-1s",
  "",
  " ",
  "1x",
  "s",
  "1h 30m",
  "h1",
  "1.2.3s",
  "1e3",
  "10000000000d",
  "1m0s",
  "00001s",
  "١s",
];

Deno.test("sys/duration.ts reads every duration as the engine's settings do", () => {
  assert.deepEqual(leaf.MAX_DURATION, MAX_DURATION);
  for (const text of INPUTS) {
    assert.equal(leaf.durationMs(text), durationMs(text), `durationMs(${JSON.stringify(text)})`);
    const a = (() => {
      try {
        return leaf.parseDuration(text, "--timeout");
      } catch (error) {
        assert.ok(error instanceof UsageError);
        return error.message;
      }
    })();
    const b = (() => {
      try {
        return parseDuration(text, "--timeout");
      } catch (error) {
        assert.ok(error instanceof UsageError);
        return error.message;
      }
    })();
    assert.equal(a, b, `parseDuration(${JSON.stringify(text)})`);
  }
  assert.equal(leaf.parseDuration("2h30m"), 9_000_000);
  assert.throws(() => leaf.parseDuration("soon", "--timeout"), /Invalid --timeout "soon"/);
});
