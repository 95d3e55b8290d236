/**
 * Worker slots and the FIFO queue. A slot is a file `slots/<n>` locked by its owner; a queued
 * run holds a locked ticket `queue/<time>-<id>`. Locks die with their owners, so a crashed
 * supervisor's slot and ticket free themselves. Owners touch the slots dir when they release,
 * which wakes waiters through a file watch; a slow re-scan covers owners that died.
 */
import { join } from "../sys/path.ts";
import type { StatePaths } from "./paths.ts";
import { createLocked, type HeldLock, isLocked, tryLock } from "./locks.ts";

/** The hard ceiling on parallel workers. */
export const MAX_PARALLEL_CEILING = 30;

/** A held slot. */
export interface Slot {
  index: number;
  release(): Promise<void>;
}

/** Options of `acquireSlot`. */
export interface AcquireOptions {
  maxParallel: number;
  /** Orders the queue: earlier keys go first. */
  queueKey: string;
  signal?: AbortSignal;
  /** Called with the 1-based queue position while waiting. */
  onQueued?(position: number): void;
  /**
   * Safety re-scan for owners that died without a release.
   * @default 5000
   */
  rescanMs?: number;
}

async function tryTakeSlot(
  paths: StatePaths,
  max: number,
): Promise<{ index: number; lock: HeldLock } | null> {
  for (let index = 0; index < max; index++) {
    const lock = await tryLock(join(paths.slots, String(index)));
    if (lock !== null) return { index, lock };
  }
  return null;
}

async function liveTickets(paths: StatePaths): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(paths.queue)) {
      if (!entry.isFile || entry.name.startsWith(".")) continue;
      if (await isLocked(join(paths.queue, entry.name))) names.push(entry.name);
      else await Deno.remove(join(paths.queue, entry.name)).catch(() => undefined);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

async function freeSlotCount(paths: StatePaths, max: number): Promise<number> {
  let free = 0;
  for (let index = 0; index < max; index++) {
    if (!(await isLocked(join(paths.slots, String(index))))) free++;
  }
  return free;
}

async function poke(dir: string): Promise<void> {
  await Deno.writeTextFile(join(dir, ".changed"), String(Date.now()));
}

function held(paths: StatePaths, taken: { index: number; lock: HeldLock }): Slot {
  return {
    index: taken.index,
    async release() {
      taken.lock.release();
      await poke(paths.slots);
    },
  };
}

/** Number of slots held right now. */
export async function busySlots(paths: StatePaths, max = MAX_PARALLEL_CEILING): Promise<number> {
  return max - (await freeSlotCount(paths, max));
}

/** Takes a slot, waiting in FIFO order behind earlier runs when all are busy. */
export async function acquireSlot(paths: StatePaths, options: AcquireOptions): Promise<Slot> {
  const max = Math.max(1, Math.min(options.maxParallel, MAX_PARALLEL_CEILING));
  await Deno.mkdir(paths.slots, { recursive: true, mode: 0o700 });
  await Deno.mkdir(paths.queue, { recursive: true, mode: 0o700 });
  if ((await liveTickets(paths)).length === 0) {
    // Nobody is queued: take a free slot straight away, without a ticket or a watch.
    const taken = await tryTakeSlot(paths, max);
    if (taken !== null) return held(paths, taken);
  }
  const ticketName = options.queueKey;
  const ticket = await createLocked(join(paths.queue, ticketName));
  const watcher = Deno.watchFs([paths.slots, paths.queue], { recursive: false });
  const iterator = watcher[Symbol.asyncIterator]();
  let pending: Promise<unknown> | null = null;
  const aborted = new Promise((resolve) => {
    if (options.signal?.aborted) resolve("abort");
    options.signal?.addEventListener("abort", () => resolve("abort"), { once: true });
  });
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const tickets = await liveTickets(paths);
      const position = Math.max(0, tickets.indexOf(ticketName));
      const free = await freeSlotCount(paths, max);
      if (position < free) {
        const taken = await tryTakeSlot(paths, max);
        if (taken !== null) return held(paths, taken);
      }
      options.onQueued?.(position + 1);
      pending ??= iterator.next();
      const rescan = new AbortController();
      const timer = new Promise((resolve) => {
        const id = setTimeout(resolve, options.rescanMs ?? 5000);
        rescan.signal.addEventListener("abort", () => clearTimeout(id));
      });
      const winner = await Promise.race([pending.then(() => "fs"), timer, aborted]);
      rescan.abort();
      if (winner === "fs") pending = null;
    }
  } finally {
    watcher.close();
    ticket.release();
    await Deno.remove(join(paths.queue, ticketName)).catch(() => undefined);
    await poke(paths.queue).catch(() => undefined);
  }
}
