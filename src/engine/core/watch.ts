/**
 * Waiting on a condition about files without polling: re-check whenever the watched directory
 * changes, with a bound on the total time.
 */
import type { Clock, Timer } from "../../sys/mod.ts";

/** Options of `watchUntil`. */
export interface WatchOptions {
  timeoutMs: number;
  /** The clock the time runs out on. */
  clock: Clock;
  /** Stop waiting early (the check is made once more) when this settles. */
  until?: Promise<unknown>;
}

/** Resolves true as soon as `check()` holds, false when the time runs out. */
export async function watchUntil(
  dir: string,
  check: () => Promise<boolean>,
  options: WatchOptions,
): Promise<boolean> {
  const watcher = Deno.watchFs(dir, { recursive: false });
  const iterator = watcher[Symbol.asyncIterator]();
  let timer: Timer | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = options.clock.after(options.timeoutMs, () => resolve("timeout"));
  });
  const until = options.until?.then(() => "until" as const, () => "until" as const);
  try {
    let next = iterator.next();
    for (;;) {
      if (await check()) return true;
      const winner = await Promise.race([
        next.then(() => "fs" as const),
        timeout,
        ...(until ? [until] : []),
      ]);
      if (winner === "timeout") return false;
      if (winner === "until") return await check();
      next = iterator.next();
    }
  } finally {
    timer?.cancel();
    watcher.close();
  }
}
