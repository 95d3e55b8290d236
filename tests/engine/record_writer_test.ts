import assert from "node:assert/strict";
import { RecordWriter } from "../../src/engine/run/record_writer.ts";
import { FakeClock } from "../support/clock.ts";

function osError(code: string): Error {
  return Object.assign(new Error(`${code} (os error): write 'run.json'`), { code });
}

function writer(write: () => Promise<void>, clock = new FakeClock()) {
  const failures: string[] = [];
  const w = new RecordWriter(write, {
    everyMs: 250,
    clock,
    onFailure: (error) => {
      failures.push(error.code);
      return Promise.resolve();
    },
  });
  return { w, failures, clock };
}

Deno.test("RecordWriter writes progress at once, then at most once per interval with a trailing write", async () => {
  let writes = 0;
  const { w, clock } = writer(() => Promise.resolve(void writes++));
  assert.equal(w.soon(), true);
  assert.equal(w.soon(), false);
  assert.equal(w.soon(), false);
  await clock.advance(249);
  assert.equal(writes, 1);
  await clock.advance(1);
  assert.equal(writes, 2, "the trailing write lands once the interval has passed");
  await w.settle();
});

Deno.test("RecordWriter hands a write the file system refuses to onFailure and goes on", async () => {
  let writes = 0;
  const { w, failures } = writer(() => {
    writes++;
    return writes === 1 ? Promise.reject(osError("ENOSPC")) : Promise.resolve();
  });
  w.now();
  w.now();
  await w.settle();
  assert.deepEqual(failures, ["ENOSPC"]);
  assert.equal(writes, 2, "the next write is made");
});

Deno.test("RecordWriter does not swallow a failure that is not the file system's: settle throws it", async () => {
  const { w, failures } = writer(() => Promise.reject(new TypeError("cyclic record")));
  w.now();
  w.now();
  await assert.rejects(w.settle(), /cyclic record/);
  assert.deepEqual(failures, []);
});
