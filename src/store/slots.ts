/**
 * Worker slots and the FIFO queue, shared by every Pitroom process of a state dir. A slot is a
 * file `slots/<n>` locked by its owner; a per-worker limit adds `slots/<worker>.<n>`. A queued
 * run holds a locked ticket `queue/<key>` (`queue/<key>.<worker>` when its worker is limited).
 * Locks die with their owners, so a crashed process's slots and tickets free themselves.
 *
 * Waiting is event-driven: each process watches `slots/` and `queue/` once, and its waiters
 * share one scan per change. A release closes a file opened for writing, and so does the kernel
 * for every file of an owner that dies; on Linux the watch reports both closes, so a dead owner
 * wakes the queue as promptly as a release does and nothing re-scans on a timer. Where the OS
 * does not report closes (macOS), a slow re-scan remains the safety net.
 *
 * Flock ownership is stronger than a pid plus start time: the kernel itself drops a lock when
 * the last descriptor of its owner closes, so a reused pid can never hold a dead run's slot.
 */
import { join } from "../sys/path.ts";
import type { StatePaths } from "./paths.ts";
import { createLocked, type HeldLock, isLockedNow, tryLockNow } from "./locks.ts";
import type { Clock, Timer } from "../sys/mod.ts";
import { Rerunner } from "../sys/rerun.ts";
import { MAX_PARALLEL_CEILING } from "./slot_ceiling.ts";

/** Re-scan period where the OS reports no closes (the safety net for owners that died). */
const SAFETY_RESCAN_MS = 5000;

/** A held slot. */
export interface Slot {
  index: number;
  release(): Promise<void>;
}

/** Options of `acquireSlot`. */
export interface AcquireOptions {
  maxParallel: number;
  /** The clock of the safety re-scan where file watching is not to be trusted. */
  clock: Clock;
  /** Orders the queue: earlier keys go first. No dots. */
  queueKey: string;
  /** Per-worker limits (`{"gemini": 2}`); the run counts against `limitKey`'s. */
  limits?: Record<string, number>;
  /** The worker the run counts as (its chain's first). */
  limitKey?: string;
  signal?: AbortSignal;
  /** Called once, with the 1-based queue position, when the run has to wait for a slot. */
  onQueued?(position: number): void;
}

/** Slot files this process holds: known to be busy without a probe. */
const heldHere = new Set<string>();

interface Taken {
  index: number;
  locks: HeldLock[];
}

interface Waiter {
  ticket: string;
  lock: HeldLock;
  options: AcquireOptions;
  reported: boolean;
  resolve(slot: Slot): void;
  reject(error: unknown): void;
}

function clampMax(max: number): number {
  return Math.max(1, Math.min(Math.floor(max), MAX_PARALLEL_CEILING));
}

function limitOf(options: AcquireOptions): { key: string; max: number } | null {
  const key = options.limitKey;
  const max = key === undefined ? undefined : options.limits?.[key];
  if (key === undefined || max === undefined) return null;
  return { key, max: Math.max(1, Math.floor(max)) };
}

/** The worker a ticket counts against (`<key>.<worker>`), if any. */
function ticketWorker(name: string): string | undefined {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1) : undefined;
}

async function ensureDirs(paths: StatePaths): Promise<void> {
  await Deno.mkdir(paths.slots, { recursive: true, mode: 0o700 });
  await Deno.mkdir(paths.queue, { recursive: true, mode: 0o700 });
}

/**
 * Locks one free file among `<prefix>0 .. <prefix>(max-1)`. A read-only probe comes first, so
 * busy slots are never opened for writing (which would wake every watcher for nothing).
 */
function lockFree(dir: string, prefix: string, max: number): Taken | null {
  for (let index = 0; index < max; index++) {
    const path = join(dir, `${prefix}${index}`);
    if (heldHere.has(path) || isLockedNow(path)) continue;
    for (let attempt = 0; attempt < 3; attempt++) {
      const lock = tryLockNow(path);
      if (lock !== null) {
        heldHere.add(path);
        return { index, locks: [lock] };
      }
      // A probe from another process holds a shared lock for an instant: look again.
      if (isLockedNow(path)) break;
    }
  }
  return null;
}

function tryTakeSlot(paths: StatePaths, options: AcquireOptions): Taken | null {
  const slot = lockFree(paths.slots, "", clampMax(options.maxParallel));
  if (slot === null) return null;
  const limit = limitOf(options);
  if (limit === null) return slot;
  const limited = lockFree(paths.slots, `${limit.key}.`, limit.max);
  if (limited === null) {
    releaseAll(slot.locks);
    return null;
  }
  return { index: slot.index, locks: [...slot.locks, ...limited.locks] };
}

function releaseAll(locks: HeldLock[]): void {
  for (const lock of locks) {
    heldHere.delete(lock.path);
    lock.release();
  }
}

function countHeld(dir: string, prefix: string, max: number): number {
  let held = 0;
  for (let index = 0; index < max; index++) {
    const path = join(dir, `${prefix}${index}`);
    if (heldHere.has(path) || isLockedNow(path)) held++;
  }
  return held;
}

/** Names of live tickets, in queue order; tickets whose owner died are removed. */
async function liveTickets(paths: StatePaths, own: ReadonlySet<string>): Promise<string[]> {
  const names: string[] = [];
  try {
    for (const entry of Deno.readDirSync(paths.queue)) {
      if (!entry.isFile || entry.name.startsWith(".")) continue;
      if (own.has(entry.name) || isLockedNow(join(paths.queue, entry.name))) {
        names.push(entry.name);
      } else await Deno.remove(join(paths.queue, entry.name)).catch(() => undefined);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

async function poke(dir: string): Promise<void> {
  await Deno.writeTextFile(join(dir, ".changed"), "");
}

/** The waiters of one state dir in this process: one watch, one scan at a time. */
class LocalQueue {
  #paths: StatePaths;
  #waiters: Waiter[] = [];
  #watcher: Deno.FsWatcher | null = null;
  #safety: Timer | undefined;
  /** One scan at a time; a kick during a scan scans once more after it, never lost. */
  #scans = new Rerunner(() => this.#scan(), (error) => this.#failAll(error));

  constructor(paths: StatePaths) {
    this.#paths = paths;
  }

  add(waiter: Waiter): void {
    this.#waiters.push(waiter);
    if (this.#watcher === null) {
      const watcher = Deno.watchFs([this.#paths.slots, this.#paths.queue], { recursive: false });
      this.#watcher = watcher;
      (async () => {
        for await (const _ of watcher) this.kick();
      })().catch((error) => this.#failAll(error));
      if (Deno.build.os !== "linux") {
        this.#safety = waiter.options.clock.every(SAFETY_RESCAN_MS, () => this.kick());
      }
    }
    this.kick();
  }

  /** Drops a waiter (given up or served) and frees its ticket. */
  async remove(waiter: Waiter): Promise<void> {
    const at = this.#waiters.indexOf(waiter);
    if (at >= 0) this.#waiters.splice(at, 1);
    waiter.lock.release();
    await Deno.remove(join(this.#paths.queue, waiter.ticket)).catch(() => undefined);
    if (this.#waiters.length === 0) this.#stopWatching();
  }

  /** Scans soon; scans once more when a scan is under way. */
  kick(): void {
    this.#scans.kick();
  }

  #stopWatching(): void {
    this.#watcher?.close();
    this.#watcher = null;
    this.#safety?.cancel();
    this.#safety = undefined;
  }

  #failAll(error: unknown): void {
    for (const w of [...this.#waiters]) {
      this.remove(w).finally(() => w.reject(error));
    }
  }

  /** Hands free slots to this process's waiters whose turn it is (FIFO across processes). */
  async #scan(): Promise<void> {
    const head = this.#waiters[0];
    if (head === undefined) return;
    const own = new Set(this.#waiters.map((w) => w.ticket));
    const tickets = await liveTickets(this.#paths, own);
    let free = clampMax(head.options.maxParallel) -
      countHeld(this.#paths.slots, "", clampMax(head.options.maxParallel));
    const limits = head.options.limits ?? {};
    const limitFree = new Map<string, number>();
    for (const [key, max] of Object.entries(limits)) {
      limitFree.set(key, max - countHeld(this.#paths.slots, `${key}.`, max));
    }
    const byTicket = new Map(this.#waiters.map((w) => [w.ticket, w]));
    const turn: Waiter[] = [];
    const waiting: Array<[Waiter, number]> = [];
    for (const [position, name] of tickets.entries()) {
      const waiter = byTicket.get(name);
      if (free <= 0) {
        if (waiter) waiting.push([waiter, position]);
        continue;
      }
      const worker = ticketWorker(name);
      const left = worker === undefined ? undefined : limitFree.get(worker);
      // A run held back by its worker's limit does not hold back the runs behind it.
      if (left !== undefined && left <= 0) {
        if (waiter) waiting.push([waiter, position]);
        continue;
      }
      free--;
      if (worker !== undefined && left !== undefined) limitFree.set(worker, left - 1);
      if (waiter) turn.push(waiter);
    }
    for (const [waiter, position] of waiting) {
      if (waiter.reported) continue;
      waiter.reported = true;
      waiter.options.onQueued?.(position + 1);
    }
    // Every waiter whose turn it is gets its slot in this one pass (no await between them); their
    // tickets go together, and only then are they told (a waiter told has no ticket left, and the
    // last one's watch is closed).
    const served: Array<[Waiter, Taken]> = [];
    for (const waiter of turn) {
      if (!this.#waiters.includes(waiter)) continue;
      const taken = tryTakeSlot(this.#paths, waiter.options);
      if (taken === null) break;
      served.push([waiter, taken]);
    }
    await Promise.all(served.map(([waiter]) => this.remove(waiter)));
    for (const [waiter, taken] of served) {
      // Given up meanwhile (its ticket's removal awaited): the slot goes back, not leaked, and
      // the waiter is told (its own listener may already have: a promise settles once).
      if (waiter.options.signal?.aborted) {
        releaseAll(taken.locks);
        this.#scans.kick();
        waiter.reject(waiter.options.signal.reason);
      } else waiter.resolve(this.#held(taken));
    }
  }

  #held(taken: Taken): Slot {
    const paths = this.#paths;
    return {
      index: taken.index,
      release: async () => {
        releaseAll(taken.locks);
        this.kick();
        await poke(paths.slots);
      },
    };
  }
}

const queues = new Map<string, LocalQueue>();

function localQueue(paths: StatePaths): LocalQueue {
  let queue = queues.get(paths.root);
  if (queue === undefined) {
    queue = new LocalQueue(paths);
    queues.set(paths.root, queue);
  }
  return queue;
}

/** Number of slots held right now. */
export function busySlots(paths: StatePaths, max = MAX_PARALLEL_CEILING): Promise<number> {
  return Promise.resolve(countHeld(paths.slots, "", max));
}

/** Number of live queue tickets right now. */
export async function queuedCount(paths: StatePaths): Promise<number> {
  return (await liveTickets(paths, new Set())).length;
}

/**
 * Takes a slot, in FIFO order: every request holds a ticket, and free slots go to the earliest
 * tickets (a request arriving while earlier ones wait never jumps ahead of them).
 */
export async function acquireSlot(paths: StatePaths, options: AcquireOptions): Promise<Slot> {
  options.signal?.throwIfAborted();
  await ensureDirs(paths);
  const queue = localQueue(paths);
  const limit = limitOf(options);
  const ticket = limit === null ? options.queueKey : `${options.queueKey}.${limit.key}`;
  const lock = await createLocked(join(paths.queue, ticket));
  const { promise, resolve, reject } = Promise.withResolvers<Slot>();
  const waiter: Waiter = { ticket, lock, options, reported: false, resolve, reject };
  const onAbort = () => {
    queue.remove(waiter).finally(() => reject(options.signal?.reason));
  };
  // Aborted while the ticket was being made: the event came before this listener, and no other
  // will come (a host stopping a run it has just taken).
  if (options.signal?.aborted) {
    lock.release();
    await Deno.remove(join(paths.queue, ticket)).catch(() => undefined);
    throw options.signal.reason;
  }
  options.signal?.addEventListener("abort", onAbort, { once: true });
  queue.add(waiter);
  try {
    return await promise;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}
