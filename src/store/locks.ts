/**
 * Advisory file locks (flock) that the kernel releases when their owner dies: the supervisor's
 * lock on its run, slot files, queue tickets and a repo's writer lock all rest on this, so a
 * crashed process never leaves a stale claim behind.
 */
import { type Clock, sleepOn } from "../sys/mod.ts";
import { basename, dirname, join } from "../sys/path.ts";

/** A held lock; `release()` unlocks and closes it. */
export interface HeldLock {
  readonly path: string;
  release(): void;
  [Symbol.dispose](): void;
}

async function open(path: string): Promise<Deno.FsFile> {
  await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  return await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
}

function held(path: string, file: Deno.FsFile): HeldLock {
  let open = true;
  const release = () => {
    if (!open) return;
    open = false;
    file.unlockSync();
    file.close();
  };
  return { path, release, [Symbol.dispose]: release };
}

/** Takes the lock if nobody holds it; null when somebody does. */
export async function tryLock(path: string, exclusive = true): Promise<HeldLock | null> {
  const file = await open(path);
  if (await file.tryLock(exclusive)) return held(path, file);
  file.close();
  return null;
}

/**
 * Takes the lock, retrying briefly: `isLocked` probes from other processes hold a shared lock for
 * an instant, which must not be mistaken for an owner. Null when a real owner holds it.
 */
export async function tryLockSoon(
  path: string,
  options: { clock: Clock; attempts?: number; delayMs?: number },
): Promise<HeldLock | null> {
  const attempts = options.attempts ?? 40;
  for (let i = 0; i < attempts; i++) {
    const lock = await tryLock(path);
    if (lock !== null) return lock;
    await sleepOn(options.clock, options.delayMs ?? 25);
  }
  return null;
}

/**
 * Creates a new file at `path` that is already locked when it appears (locked under a hidden
 * name, then renamed into place), so no scanner ever sees it unlocked and takes it for the
 * leftover of a dead owner.
 */
export async function createLocked(path: string): Promise<HeldLock> {
  const temp = join(dirname(path), `.${basename(path)}.${Deno.pid}.new`);
  const file = await Deno.open(temp, { read: true, write: true, createNew: true, mode: 0o600 });
  try {
    if (!(await file.tryLock(true))) throw new Error(`cannot lock a new file: ${temp}`);
    await Deno.rename(temp, path);
  } catch (error) {
    file.close();
    await Deno.remove(temp).catch(() => undefined);
    throw error;
  }
  return held(path, file);
}

/** True when a live process holds the lock at `path` exclusively. */
export async function isLocked(path: string): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  try {
    if (await file.tryLock(false)) {
      file.unlockSync();
      return false;
    }
    return true;
  } finally {
    file.close();
  }
}

/**
 * `isLocked` without leaving the event loop: for scans that probe many small files in a row (the
 * slot queue counts up to 30 slots and every ticket on each change), where each asynchronous open,
 * lock and close is a round trip through the runtime's thread pool and a crew's scans queued
 * behind one another (a crew of 10 took its slots 40 ms apart on a quiet 2-core machine).
 */
export function isLockedNow(path: string): boolean {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  try {
    if (file.tryLockSync(false)) {
      file.unlockSync();
      return false;
    }
    return true;
  } finally {
    file.close();
  }
}

/** `tryLock` without leaving the event loop (see `isLockedNow`); the folder must exist. */
export function tryLockNow(path: string): HeldLock | null {
  const file = Deno.openSync(path, { read: true, write: true, create: true, mode: 0o600 });
  if (file.tryLockSync(true)) return held(path, file);
  file.close();
  return null;
}

/** Takes the lock at `path` exclusively, waiting as long as somebody else holds it. */
export async function lock(path: string): Promise<HeldLock> {
  const file = await open(path);
  try {
    await file.lock(true);
  } catch (error) {
    file.close();
    throw error;
  }
  return held(path, file);
}

/**
 * Runs `fn` holding the lock at `path` exclusively, waiting for it first (short critical
 * sections over one shared file: the cooldown table, the history's repairs).
 */
export async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const file = await open(path);
  try {
    await file.lock(true);
    return await fn();
  } finally {
    file.close();
  }
}
