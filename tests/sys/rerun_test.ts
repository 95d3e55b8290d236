import assert from "node:assert/strict";
import { Rerunner } from "../../src/sys/rerun.ts";

/** Resolves after `n` microtask hops. */
async function hops(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

Deno.test("Rerunner runs again for a kick at any moment of a run's end (none is lost)", async () => {
  // The slot queue's scan lost such a kick once: a run asked for a slot as the scan before it
  // ended, and waited with slots free until something else changed in slots/ or queue/.
  for (let n = 0; n < 12; n++) {
    let runs = 0;
    const idle = Promise.withResolvers<void>();
    const rerunner = new Rerunner(async () => {
      runs++;
      if (runs === 1) {
        // A kick `n` hops after this run's last await: before, at and after the run's end.
        void hops(n).then(() => rerunner.kick());
        await Promise.resolve();
      } else idle.resolve();
    }, (error) => idle.reject(error));
    rerunner.kick();
    const timeout = setTimeout(
      () => idle.reject(new Error(`the kick ${n} hops on was lost`)),
      1000,
    );
    await idle.promise.finally(() => clearTimeout(timeout));
    assert.equal(runs, 2, `kick ${n} hops on`);
  }
});

Deno.test("Rerunner runs one job at a time and counts kicks meanwhile as one", async () => {
  let running = 0;
  let most = 0;
  let runs = 0;
  const gate = Promise.withResolvers<void>();
  const rerunner = new Rerunner(async () => {
    runs++;
    running++;
    most = Math.max(most, running);
    if (runs === 1) await gate.promise;
    running--;
  }, () => undefined);
  rerunner.kick();
  rerunner.kick();
  rerunner.kick();
  gate.resolve();
  await hops(20);
  assert.deepEqual({ runs, most }, { runs: 2, most: 1 });
});

Deno.test("Rerunner tells a failed run and runs again on the next kick", async () => {
  const errors: unknown[] = [];
  let runs = 0;
  const rerunner = new Rerunner(() => {
    runs++;
    return runs === 1 ? Promise.reject(new Error("boom")) : Promise.resolve();
  }, (error) => errors.push(error));
  rerunner.kick();
  await hops(5);
  assert.equal((errors[0] as Error).message, "boom");
  rerunner.kick();
  await hops(5);
  assert.equal(runs, 2);
});
