import assert from "node:assert/strict";
import { join } from "node:path";
import { isLocked, tryLock } from "../../src/store/locks.ts";
import { statePaths } from "../../src/store/paths.ts";
import { acquireSlot, busySlots } from "../../src/store/slots.ts";
import { realClock } from "../../src/sys/real.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("tryLock() gives a lock to one holder at a time and frees it on release", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "l");
  const first = await tryLock(path);
  assert.ok(first);
  assert.equal(await tryLock(path), null);
  assert.equal(await isLocked(path), true);
  first.release();
  assert.equal(await isLocked(path), false);
  const second = await tryLock(path);
  assert.ok(second);
  second.release();
});

Deno.test("a lock held by a process that died is free again (the kernel releases it)", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "l");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const f = await Deno.open(${
        JSON.stringify(path)
      }, {read: true, write: true, create: true}); await f.lock(true); console.log("held"); setInterval(() => {}, 60000);`,
    ],
    stdout: "piped",
    stdin: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert.match(new TextDecoder().decode(value), /held/);
  assert.equal(await isLocked(path), true);
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel();
  assert.equal(await isLocked(path), false);
});

Deno.test("acquireSlot() never hands out more than maxParallel slots and queues the rest in order", async () => {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  const a = await acquireSlot(paths, { clock: realClock, maxParallel: 2, queueKey: "1-a" });
  const b = await acquireSlot(paths, { clock: realClock, maxParallel: 2, queueKey: "2-b" });
  assert.equal(await busySlots(paths, 2), 2);
  const order: string[] = [];
  const cQueued = Promise.withResolvers<number>();
  const dQueued = Promise.withResolvers<number>();
  const c = acquireSlot(paths, {
    clock: realClock,
    maxParallel: 2,
    queueKey: "3-c",
    onQueued: (p) => cQueued.resolve(p),
  })
    .then((s) => (order.push("c"), s));
  assert.equal(await cQueued.promise, 1);
  const d = acquireSlot(paths, {
    clock: realClock,
    maxParallel: 2,
    queueKey: "4-d",
    onQueued: (p) => dQueued.resolve(p),
  })
    .then((s) => (order.push("d"), s));
  assert.equal(await dQueued.promise, 2);
  await a.release();
  const sc = await c;
  assert.deepEqual(order, ["c"]);
  await b.release();
  const sd = await d;
  assert.deepEqual(order, ["c", "d"]);
  await sc.release();
  await sd.release();
  assert.equal(await busySlots(paths, 2), 0);
});

Deno.test("acquireSlot() gives up when its signal aborts while queued", async () => {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  const held = await acquireSlot(paths, { clock: realClock, maxParallel: 1, queueKey: "1-a" });
  const abort = new AbortController();
  const waiting = acquireSlot(paths, {
    clock: realClock,
    maxParallel: 1,
    queueKey: "2-b",
    signal: abort.signal,
    onQueued: () => abort.abort(new Error("stop")),
  });
  await assert.rejects(waiting, /stop/);
  await held.release();
});

/** `promise`, or a rejection naming `what` once `ms` have passed (a hang fails, not stalls). */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const timeout = Promise.withResolvers<never>();
  const timer = realClock.after(ms, () => timeout.reject(new Error(`${what}: still pending`)));
  return Promise.race([promise, timeout.promise]).finally(() => timer.cancel());
}

// A stop that comes while the ticket is being made (the host stops a run it has just taken) used
// to come before the listener: the waiter was then served, its slot given back, and it was
// neither resolved nor rejected, so the run stayed queued for good (and its host never ended).
// Each case ends with the slot free for the next request and no ticket left behind.
async function abortedWhileTicketMade(holdFirst: boolean): Promise<void> {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  const request = (queueKey: string, signal?: AbortSignal) =>
    acquireSlot(paths, {
      clock: realClock,
      maxParallel: 1,
      queueKey,
      ...(signal ? { signal } : {}),
    });
  const held = holdFirst ? await request("1-held") : null;
  const abort = new AbortController();
  const waiting = request("2-aborted", abort.signal);
  abort.abort(new Error("stop"));
  await held?.release();
  await assert.rejects(bounded(waiting, 5_000, "the aborted request"), /stop/);
  assert.equal(await busySlots(paths, 1), 0);
  const next = await bounded(request("3-next"), 5_000, "the next request");
  await next.release();
  assert.deepEqual([...Deno.readDirSync(paths.queue)].filter((e) => !e.name.startsWith(".")), []);
}

Deno.test("acquireSlot() gives up when its signal aborts before its ticket is made, with a slot free", async () => {
  await abortedWhileTicketMade(false);
});

Deno.test("acquireSlot() gives up when its signal aborts before its ticket is made, with every slot held", async () => {
  await abortedWhileTicketMade(true);
});

Deno.test("queued runs keep their places while others join the queue (tickets appear already locked)", async () => {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  const first = await acquireSlot(paths, { clock: realClock, maxParallel: 1, queueKey: "0-first" });
  const order: string[] = [];
  const waiting: Promise<{ release(): Promise<void> }>[] = [];
  for (let n = 1; n <= 6; n++) {
    const queued = Promise.withResolvers<number>();
    waiting.push(
      acquireSlot(paths, {
        clock: realClock,
        maxParallel: 1,
        queueKey: `${n}-run`,
        onQueued: (p) => queued.resolve(p),
      })
        .then((slot) => (order.push(`${n}-run`), slot)),
    );
    assert.equal(await queued.promise, n, `run ${n} joins the queue at position ${n}`);
  }
  await first.release();
  for (const w of waiting) await (await w).release();
  assert.deepEqual(order, ["1-run", "2-run", "3-run", "4-run", "5-run", "6-run"]);
});

Deno.test("a per-worker limit caps that worker's runs without holding back the runs behind", async () => {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  const limits = { gemini: 1 };
  const g1 = await acquireSlot(paths, {
    clock: realClock,
    maxParallel: 3,
    queueKey: "1-g",
    limits,
    limitKey: "gemini",
  });
  const queued = Promise.withResolvers<number>();
  const g2 = acquireSlot(paths, {
    clock: realClock,
    maxParallel: 3,
    queueKey: "2-g",
    limits,
    limitKey: "gemini",
    onQueued: (p) => queued.resolve(p),
  });
  assert.equal(await queued.promise, 1, "the second gemini run waits for the first");
  // A codex run queued behind it gets a free slot at once.
  const c = await acquireSlot(paths, {
    clock: realClock,
    maxParallel: 3,
    queueKey: "3-c",
    limits,
    limitKey: "codex",
  });
  assert.equal(await busySlots(paths, 3), 2);
  await g1.release();
  const second = await g2;
  assert.equal(await busySlots(paths, 3), 2);
  await second.release();
  await c.release();
});

Deno.test({
  name: "a slot owner that dies wakes the queue at once (the kernel's close, no timed re-scan)",
  // Linux reports the close of a dead owner's files; elsewhere the slow re-scan remains.
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  await Deno.mkdir(paths.slots, { recursive: true });
  const slot = join(paths.slots, "0");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const f = await Deno.open(${
        JSON.stringify(slot)
      }, {read: true, write: true, create: true}); await f.lock(true); console.log("held"); setInterval(() => {}, 60000);`,
    ],
    stdout: "piped",
    stdin: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  await reader.read();
  const queued = Promise.withResolvers<number>();
  const waiting = acquireSlot(paths, {
    clock: realClock,
    maxParallel: 1,
    queueKey: "1-a",
    onQueued: (p) => queued.resolve(p),
  });
  assert.equal(await queued.promise, 1);
  const killedAt = Date.now();
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel();
  const got = await waiting;
  const waited = Date.now() - killedAt;
  assert.ok(
    waited < 2000,
    `the slot came ${waited}ms after the owner died (the old re-scan took 5 s)`,
  );
  await got.release();
});
