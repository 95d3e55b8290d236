/**
 * The real clock's timers (on `AbortSignal.timeout`, not the global `setTimeout`): a timer fires
 * once, a cancelled one never fires and does not hold the process, a ticker ticks until it is
 * cancelled (also from inside its own tick), and odd delays neither throw nor fire early.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { realClock } from "../../src/sys/real.ts";

/** Resolves once `realClock.after(ms)` fires. */
function slept(ms: number): Promise<void> {
  return new Promise((resolve) => realClock.after(ms, resolve));
}

Deno.test("a timer fires once, no sooner than asked", async () => {
  const start = performance.now();
  let fired = 0;
  await new Promise<void>((resolve) =>
    realClock.after(40, () => {
      fired += 1;
      resolve();
    })
  );
  assert.ok(performance.now() - start >= 39, "fired too soon");
  await slept(60);
  assert.equal(fired, 1);
});

Deno.test("a cancelled timer never fires", async () => {
  let fired = false;
  const timer = realClock.after(20, () => (fired = true));
  timer.cancel();
  timer.cancel();
  await slept(80);
  assert.equal(fired, false);
});

Deno.test("a ticker ticks until cancelled from inside its own tick", async () => {
  let ticks = 0;
  await new Promise<void>((resolve) => {
    const ticker = realClock.every(10, () => {
      ticks += 1;
      if (ticks === 3) {
        ticker.cancel();
        resolve();
      }
    });
  });
  await slept(60);
  assert.equal(ticks, 3);
});

Deno.test("a negative or NaN delay fires at once; one past the runtime's range does not fire early", async () => {
  await slept(-5);
  await slept(Number.NaN);
  let fired = false;
  const far = realClock.after(2 ** 40, () => (fired = true));
  await slept(50);
  far.cancel();
  assert.equal(fired, false);
});

Deno.test("a cancelled timer does not keep the process alive", async () => {
  const real = fileURLToPath(new URL("../../src/sys/real.ts", import.meta.url));
  const script = `
    const { realClock } = await import(${JSON.stringify(real)});
    realClock.after(600_000, () => console.log("fired")).cancel();
    const ticker = realClock.every(600_000, () => console.log("ticked"));
    ticker.cancel();
    await new Promise((resolve) => realClock.after(10, resolve));
    console.log("done");
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", "--no-config", script],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Ten minutes if the cancelled timers held it; the bound only keeps a broken build from hanging.
  const killer = AbortSignal.timeout(60_000);
  const kill = () => child.kill("SIGKILL");
  killer.addEventListener("abort", kill, { once: true });
  const out = await child.output();
  killer.removeEventListener("abort", kill);
  assert.equal(new TextDecoder().decode(out.stdout), "done\n");
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
});
