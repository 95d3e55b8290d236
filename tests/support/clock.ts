/**
 * A fake clock for engine tests: time stands still until the test advances it, and the timers
 * of the code under test (timeouts, kill graces, throttles, cooldowns) fire as it passes them.
 */
import type { Clock, Timer } from "../../src/sys/mod.ts";

interface Pending {
  seq: number;
  at: number;
  every: number | null;
  fn: () => void;
}

/** A clock that moves only when `advance` is called. */
export class FakeClock implements Clock {
  #now: number;
  #timers: Pending[] = [];
  #seq = 0;

  /** Starts at `start` (ms since the epoch). @default 2026-11-30T12:00:00Z */
  constructor(start = Date.UTC(2026, 10, 30, 12)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  after(ms: number, fn: () => void): Timer {
    return this.#add(Math.max(0, ms), null, fn);
  }

  every(ms: number, fn: () => void): Timer {
    return this.#add(Math.max(1, ms), Math.max(1, ms), fn);
  }

  /** How many timers are waiting. */
  get pending(): number {
    return this.#timers.length;
  }

  /** The time left until the next timer fires; null when none waits. */
  nextIn(): number | null {
    const next = this.#next(Infinity);
    return next === undefined ? null : next.at - this.#now;
  }

  /**
   * Moves time forward by `ms`, firing every timer that comes due on the way in time order
   * (timers set by a firing one included), letting promise reactions run after each.
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      const next = this.#next(end);
      if (next === undefined) break;
      this.#now = next.at;
      if (next.every === null) this.#timers.splice(this.#timers.indexOf(next), 1);
      else next.at += next.every;
      next.fn();
      await settle();
    }
    this.#now = end;
    await settle();
  }

  #add(ms: number, every: number | null, fn: () => void): Timer {
    const timer: Pending = { seq: this.#seq++, at: this.#now + ms, every, fn };
    this.#timers.push(timer);
    return {
      cancel: () => {
        const at = this.#timers.indexOf(timer);
        if (at >= 0) this.#timers.splice(at, 1);
      },
    };
  }

  #next(end: number): Pending | undefined {
    let best: Pending | undefined;
    for (const t of this.#timers) {
      if (t.at > end) continue;
      if (best === undefined || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}

/** Lets queued promise reactions run (a macrotask turn of the real event loop). */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
