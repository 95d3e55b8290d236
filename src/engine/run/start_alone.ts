/**
 * Starting one at a time: launches that name the same `startAlone` take a lock in the state dir
 * before they spawn and give it up when the worker prints its first line on stdout (its own
 * start-up is done by then), when it ends, or after `START_ALONE_MAX_MS`, so a worker that hangs
 * at start holds up the next ones for that long at most. The kernel frees the lock of a
 * supervisor that dies.
 */
import type { HeldSys } from "../../store/state.ts";
import { lock } from "../../store/locks.ts";
import { join } from "../../sys/path.ts";

/** The longest one start holds up the next. */
export const START_ALONE_MAX_MS = 15_000;

/** A start under way; `release()` lets the next one go (more calls do nothing). */
export interface StartGate {
  release(): void;
}

const OPEN: StartGate = { release: () => undefined };

/** Waits for the launches of `name` before this one to have started; none for no name. */
export async function startAlone(sys: HeldSys, name: string | undefined): Promise<StartGate> {
  if (name === undefined) return OPEN;
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`bad start-alone name "${name}"`);
  const held = await lock(join(sys.state.paths.locks, `start-${name}.lock`));
  let open = true;
  const bound = sys.clock.after(START_ALONE_MAX_MS, () => release());
  function release() {
    if (!open) return;
    open = false;
    bound.cancel();
    held.release();
  }
  return { release };
}
